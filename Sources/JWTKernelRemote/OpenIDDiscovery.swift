import JWTKernel

/// An issuer's keys found from its identifier alone (OpenID Connect Discovery 1.0): the refresher
/// fetches `documentURL`, requires the document's `issuer` to equal `issuer` exactly (section 4.3:
/// a document naming another issuer is refused, against issuer mix-up), takes `jwks_uri` from it and
/// fetches the keys there. Register with `KeyRefresher.add(discovery:localKeys:policy:)`.
///
/// The document lives on its own, slower schedule (`documentPolicy`: its `max-age` clamped to
/// 5 min .. 7 days, 24 h without one); a failed refresh of it keeps the last good `jwks_uri`, and the
/// keys keep their own schedule, backoff, staleness and unknown-kid rules (`RefreshPolicy`).
public struct OpenIDDiscovery: Sendable {
    /// The configured identifier, compared byte for byte with the document's `issuer` and the tokens' `iss`.
    public let issuer: String
    /// `issuer` with its trailing `/` removed, then `/.well-known/openid-configuration` (section 4):
    /// `https://x` and `https://x/` fetch the same URL, yet only the one the document names matches.
    public let documentURL: String
    /// Limits of both fetches (the document's and the keys'): timeouts, size cap, plain-http rule, CA file.
    public let configuration: HTTPKeySourceConfiguration
    /// When the document is fetched again (`defaultMaxAge`, `minMaxAge`, `maxMaxAge`,
    /// `refreshAheadFraction`, the backoff after failures); its staleness and cooldown are not used.
    public let documentPolicy: RefreshPolicy

    let documentSource: HTTPKeySource

    /// The document's default schedule: 24 h without `max-age`, `max-age` clamped to 5 min .. 7 days
    /// (it changes far less often than the keys, and each key fetch needs none of it).
    public static var defaultDocumentPolicy: RefreshPolicy {
        var policy = RefreshPolicy()
        policy.maxMaxAge = 7 * 86_400
        policy.minMaxAge = 300
        policy.defaultMaxAge = 86_400
        return policy
    }

    /// Refuses an issuer whose document could never be fetched under `configuration` (not https, or
    /// http to a host that is not loopback unless allowed) or that is not an issuer identifier (empty,
    /// or with a query or fragment, which section 2 of OpenID Connect Core excludes).
    public init(
        issuer: String, configuration: HTTPKeySourceConfiguration = HTTPKeySourceConfiguration(),
        documentPolicy: RefreshPolicy = OpenIDDiscovery.defaultDocumentPolicy
    ) throws(KeySourceError) {
        guard !issuer.isEmpty, !issuer.contains("?"), !issuer.contains("#") else {
            throw KeySourceError(.refusedURL, "issuer \"\(issuer)\": an issuer URL has no query or fragment")
        }
        self.issuer = issuer
        self.documentURL = Self.documentURL(forIssuer: issuer)
        self.configuration = configuration
        self.documentPolicy = documentPolicy
        do { self.documentSource = try HTTPKeySource(url: documentURL, configuration: configuration) } catch {
            throw KeySourceError(error.reason, "issuer \(issuer): \(error.message)")
        }
    }

    /// Section 4: "any terminating / MUST be removed before appending /.well-known/openid-configuration".
    public static func documentURL(forIssuer issuer: String) -> String {
        var base = Substring(issuer)
        while base.hasSuffix("/") { base = base.dropLast() }
        return base + "/.well-known/openid-configuration"
    }
}
