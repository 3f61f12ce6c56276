public import JWTKernel
public import Vapor

/// Refusals as Vapor's `Abort`, with RFC 6750's challenge in `WWW-Authenticate`: status and `error` from the
/// core's table (`JWTErrorCode.httpStatus`, `.bearerError`), the one the C library and the nginx module
/// answer from. `reason` and `identifier` are the code's name (`expired`, `bad_audience`, ...; what RFC
/// 6750's `error_description` is for, and no token or key bytes), so `ErrorMiddleware`'s JSON body says why.
extension Abort {
    /// No `Authorization: Bearer` header: 401 `Bearer realm="..."`, no `error` (RFC 6750 section 3.1).
    public static func bearerMissing(realm: String) -> Abort {
        Abort(
            .unauthorized, headers: ["WWW-Authenticate": BearerChallenge.header(realm: realm)],
            reason: "missing_token", identifier: "missing_token")
    }

    /// The verifier refused the token: 401 `invalid_token`, 403 for a wrong audience, 503 without a
    /// challenge when the issuer has no keys yet.
    public static func bearer(refusing error: JWTError, realm: String) -> Abort {
        var headers = HTTPHeaders()
        if let challenge = BearerChallenge.header(realm: realm, refusing: error) {
            headers.replaceOrAdd(name: .wwwAuthenticate, value: challenge)
        }
        return Abort(
            HTTPResponseStatus(statusCode: error.code.httpStatus), headers: headers, reason: error.code.name,
            identifier: error.code.name)
    }

    /// A valid token for which the application found no user (a token "invalid for other reasons").
    public static func bearerUnknownIdentity(realm: String) -> Abort {
        Abort(
            .unauthorized, headers: ["WWW-Authenticate": BearerChallenge.header(realm: realm, error: "invalid_token")],
            reason: "unknown_identity", identifier: "unknown_identity")
    }

    /// A valid token that does not grant what the route needs: 403 `insufficient_scope`.
    public static func bearerInsufficientScope(realm: String, scope: String? = nil) -> Abort {
        let challenge = BearerChallenge.header(realm: realm, error: BearerChallenge.insufficientScope, scope: scope)
        return Abort(
            .forbidden, headers: ["WWW-Authenticate": challenge], reason: BearerChallenge.insufficientScope,
            identifier: BearerChallenge.insufficientScope)
    }
}
