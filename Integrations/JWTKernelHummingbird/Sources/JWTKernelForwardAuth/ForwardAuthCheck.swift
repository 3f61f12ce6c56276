public import HTTPTypes
import JWTKernel
public import JWTKernelHummingbird
import JWTKernelRemote
public import JWTKernelServer
public import Logging

/// The forward-auth agent's decision on one request's headers, shared by its HTTP route (`/auth`) and its
/// ext_authz gRPC service, so the two modes answer alike: the token from the configured sources (the first source
/// that has one decides; a bad one there is refused, not passed over), verified and counted, then every
/// configured claim header.
public struct ForwardAuthCheck: Sendable {
    public let verifier: MultiIssuerVerifier
    public let configuration: ForwardAuthConfiguration
    public let counters: VerificationCounters?

    public init(verifier: MultiIssuerVerifier, configuration: ForwardAuthConfiguration, counters: VerificationCounters?)
    {
        self.verifier = verifier
        self.configuration = configuration
        self.counters = counters
    }

    /// The claim headers for a valid token: every configured header, empty for a claim without a value (Caddy 2.6's
    /// copy_headers sets the upstream header to its literal placeholder when the answer lacks it, and an empty
    /// value is what nginx's auth_request_set and proxy_set_header drop). A refusal throws the RFC 6750 answer.
    public func claimHeaders(for headers: HTTPFields, logger: Logger) throws(BearerError) -> HTTPFields {
        let found = configuration.tokenSources.lazy.compactMap { $0.token(in: headers) }.first
        guard let token = found else { throw BearerError.missingToken(realm: configuration.realm) }
        let verified = try verifier.verifyBearer(token, realm: configuration.realm, counters: counters, logger: logger)
        var out = HTTPFields()
        for claim in configuration.claimHeaders { out[claim.header] = claim.value(in: verified) ?? "" }
        return out
    }
}
