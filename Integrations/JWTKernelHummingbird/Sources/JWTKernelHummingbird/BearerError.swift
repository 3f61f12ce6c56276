public import HTTPTypes
public import Hummingbird
public import JWTKernel

/// A refused request, answered with RFC 6750's challenge: 401 `WWW-Authenticate: Bearer realm="..."` when
/// no token came, 401 with `error="invalid_token"` for a bad token (a wrong audience included), 403 with
/// `insufficient_scope` for an unmet claim requirement (and `insufficientScope`, an application's own refusal), 503 without a challenge when the token's issuer has
/// no keys yet. Status and `error` come from the core's table (`JWTErrorCode.httpStatus`, `.bearerError`),
/// the one the C library and the nginx module answer from.
///
/// The body is `{"error":{"message":"<code>"}}` with the code's name (`expired`, `bad_audience`, ...):
/// what RFC 6750's `error_description` is for, and no token or key bytes. The detail text is not sent.
public struct BearerError: HTTPResponseError, Sendable {
    public let status: HTTPResponse.Status
    /// The `WWW-Authenticate` value, nil for a 503.
    public let challenge: String?
    /// Why the token was refused; nil when no token came, for `unknownIdentity` and `insufficientScope`.
    public let error: JWTError?
    /// The body's message: the code's name, `missing_token`, `unknown_identity` or `insufficient_scope`.
    public let message: String

    /// No `Authorization: Bearer` header.
    public static func missingToken(realm: String) -> BearerError {
        BearerError(
            status: .unauthorized, challenge: BearerChallenge.header(realm: realm), error: nil, message: "missing_token"
        )
    }

    /// The verifier refused the token.
    public static func refused(_ error: JWTError, realm: String) -> BearerError {
        BearerError(
            status: HTTPResponse.Status(code: error.code.httpStatus),
            challenge: BearerChallenge.header(realm: realm, refusing: error), error: error, message: error.code.name)
    }

    /// A valid token for which the application's identity closure found no one (RFC 6750: a token
    /// "invalid for other reasons").
    public static func unknownIdentity(realm: String) -> BearerError {
        BearerError(
            status: .unauthorized, challenge: BearerChallenge.header(realm: realm, error: "invalid_token"), error: nil,
            message: "unknown_identity")
    }

    /// A valid token that does not grant what the route needs: throw it from an identity closure or a handler.
    public static func insufficientScope(realm: String, scope: String? = nil) -> BearerError {
        BearerError(
            status: .forbidden,
            challenge: BearerChallenge.header(realm: realm, error: BearerChallenge.insufficientScope, scope: scope),
            error: nil, message: BearerChallenge.insufficientScope)
    }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = HTTPFields()
        if let challenge { headers[.wwwAuthenticate] = challenge }
        return try HTTPError(status, headers: headers, message: message).response(from: request, context: context)
    }
}
