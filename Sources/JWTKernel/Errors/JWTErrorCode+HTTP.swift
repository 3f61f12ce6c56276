/// How a server answers a refused token: the one table behind the C library's `jwtk_status_http` and
/// `jwtk_status_bearer_error`, the nginx module and the Hummingbird and Vapor integrations, so that every
/// front end gives the same status and RFC 6750 challenge for the same code (docs/ERRORS.md).
extension JWTErrorCode {
    /// 403 for `claim_requirement_failed` (a genuine token without the privilege this resource asks for),
    /// 503 for `keys_unavailable` (the server cannot check any token of that issuer yet: its fault, not the
    /// client's), 401 for the rest. A token for another audience is 401 `invalid_token`: RFC 6750 §3.1 pairs
    /// `invalid_token` with 401, RFC 9068 §4 says a resource server rejects a wrong `aud` as `invalid_token`,
    /// and NGINX Plus answers 401 (it was 403 in 0.1.0).
    public var httpStatus: Int {
        switch self {
        case .claimRequirementFailed: return 403
        case .keysUnavailable: return 503
        default: return 401
        }
    }

    /// The RFC 6750 section 3.1 `error` of the `WWW-Authenticate` challenge: `invalid_token` for token errors,
    /// nil for `keys_unavailable` (a 503 carries no challenge: the token was never judged).
    ///
    /// Every unmet claim requirement is `insufficient_scope`, not only those on `scope`: the token passed every
    /// other check, so a new token of the same grant would fail the same way, and `invalid_token` would send
    /// the client to get one (and pairs with 401, while these answer 403). A tenant, role, plan or verified
    /// e-mail the resource asks for is a privilege the token does not carry: "higher privileges than provided".
    public var staticBearerError: StaticString? {
        switch self {
        case .keysUnavailable: return nil
        case .claimRequirementFailed: return "insufficient_scope"
        default: return "invalid_token"
        }
    }

    /// `staticBearerError` as a `String`.
    public var bearerError: String? { staticBearerError?.description }
}
