public import JWTKernel
public import Vapor

// Typed verification on the request, as vapor/jwt hands out a typed token: the claims of the verified token
// decoded as the caller's `Decodable` (a provider's `AppleClaims`, `GoogleClaims`, ... or the application's own).
extension Request.JWTKernel {
    /// The `Authorization: Bearer` token verified by `app.jwtKernel.verifier`, its claims as `T`.
    public func verify<T: Decodable>(as type: T.Type) throws -> T {
        try decode(try verify(), as: type)
    }

    /// `token` (from the body, as Apple's `identityToken` arrives) verified by `app.jwtKernel.verifier`, as `T`.
    public func verify<T: Decodable>(_ token: String, as type: T.Type) throws -> T {
        try decode(try verify(token), as: type)
    }

    /// Claims that do not fit `T` make a token "invalid for other reasons" (RFC 6750 §3.1) for this route:
    /// 401 `invalid_token`, reason `claims_not_decodable`; what did not fit is logged at `debug`, never
    /// sent to the client.
    func decode<T: Decodable>(_ token: VerifiedJWT, as type: T.Type) throws -> T {
        do {
            return try token.decode(type)
        } catch {
            request.logger.debug(
                "jwt-kernel: verified claims do not fit the route's type",
                metadata: ["jwtk.type": "\(T.self)", "jwtk.error": "\(error)"])
            throw BearerRefusal.claimsNotDecodable(realm: realm)
        }
    }
}

extension Request.JWTKernel.Provider {
    /// The bearer token verified by this provider's verifier, its claims as `T` (`AppleClaims` for Apple).
    public func verify<T: Decodable>(as type: T.Type) throws -> T {
        try kernel.decode(try verify(), as: type)
    }

    /// `token` verified by this provider's verifier, its claims as `T`.
    public func verify<T: Decodable>(_ token: String, as type: T.Type) throws -> T {
        try kernel.decode(try verify(token), as: type)
    }
}
