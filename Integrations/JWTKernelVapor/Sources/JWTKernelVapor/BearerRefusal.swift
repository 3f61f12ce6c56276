public import JWTKernel
public import Vapor

/// A refused request, answered with RFC 6750's challenge in `WWW-Authenticate`: status and `error` from the
/// core's table (`JWTErrorCode.httpStatus`, `.bearerError`), the one the C library and the nginx module answer
/// from. `reason` and `identifier` are the code's name (`expired`, `bad_audience`, ...; what RFC 6750's
/// `error_description` is for, and no token or key bytes), so `ErrorMiddleware`'s JSON body says why.
///
/// Not Vapor's `Abort`: `ErrorMiddleware` logs an `Abort` at `warning`, which at a gateway's rate of refused
/// tokens is a log flood. A refusal is the client's affair and is logged at `debug` (`logLevel`), as nginx
/// logs it at `info` and the Hummingbird integration at `debug`.
public struct BearerRefusal: AbortError, DebuggableError {
    public var status: HTTPResponseStatus
    public var headers: HTTPHeaders
    public var reason: String
    public var identifier: String
    public var logLevel: Logger.Level { .debug }

    init(_ status: HTTPResponseStatus, challenge: String?, reason: String) {
        self.status = status
        self.headers = HTTPHeaders()
        if let challenge { headers.replaceOrAdd(name: .wwwAuthenticate, value: challenge) }
        self.reason = reason
        self.identifier = reason
    }

    /// No `Authorization: Bearer` header: 401 `Bearer realm="..."`, no `error` (RFC 6750 section 3.1).
    public static func missing(realm: String) -> BearerRefusal {
        BearerRefusal(.unauthorized, challenge: BearerChallenge.header(realm: realm), reason: "missing_token")
    }

    /// The verifier refused the token: 401 `invalid_token` (a wrong audience included), 403
    /// `insufficient_scope` for an unmet claim requirement, 503 without a challenge when the issuer has no keys yet.
    public static func refusing(_ error: JWTError, realm: String) -> BearerRefusal {
        BearerRefusal(
            HTTPResponseStatus(statusCode: error.code.httpStatus),
            challenge: BearerChallenge.header(realm: realm, refusing: error), reason: error.code.name)
    }

    /// A valid token for which the application found no user (a token "invalid for other reasons").
    public static func unknownIdentity(realm: String) -> BearerRefusal {
        BearerRefusal(
            .unauthorized, challenge: BearerChallenge.header(realm: realm, error: "invalid_token"),
            reason: "unknown_identity")
    }

    /// A verified token whose claims do not fit the route's type (`req.jwtKernel.verify(as:)`).
    public static func claimsNotDecodable(realm: String) -> BearerRefusal {
        BearerRefusal(
            .unauthorized, challenge: BearerChallenge.header(realm: realm, error: "invalid_token"),
            reason: "claims_not_decodable")
    }

    /// A valid token that does not grant what the route needs: 403 `insufficient_scope`.
    public static func insufficientScope(realm: String, scope: String? = nil) -> BearerRefusal {
        BearerRefusal(
            .forbidden,
            challenge: BearerChallenge.header(realm: realm, error: BearerChallenge.insufficientScope, scope: scope),
            reason: BearerChallenge.insufficientScope)
    }
}
