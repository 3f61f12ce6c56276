public import Hummingbird
public import JWTKernel
public import JWTKernelServer
public import Logging

extension MultiIssuerVerifier {
    /// A bearer token verified as `JWTKernelAuthenticator` and the forward-auth agent verify it: synchronously
    /// (no actor hop, no I/O), the result counted in `counters` if given, a refusal logged at `debug` on the
    /// request's logger with `jwtk.error` (the code's name) and thrown as `BearerError.refused` with `realm`'s
    /// RFC 6750 challenge.
    public func verifyBearer(
        _ token: Substring, realm: String, counters: VerificationCounters?, context: some RequestContext
    ) throws(BearerError) -> VerifiedJWT {
        try verifyBearer(token, realm: realm, counters: counters, logger: context.logger)
    }

    /// The same outside a Hummingbird request (the forward-auth agent's gRPC service): the refusal is logged on
    /// `logger`.
    public func verifyBearer(
        _ token: Substring, realm: String, counters: VerificationCounters?, logger: Logger
    ) throws(BearerError) -> VerifiedJWT {
        do {
            let verified = try verify(String(token))
            counters?.count(verified)
            return verified
        } catch {
            counters?.count(error)
            logger.debug("Bearer token refused", metadata: ["jwtk.error": "\(error.code.name)"])
            throw BearerError.refused(error, realm: realm)
        }
    }
}
