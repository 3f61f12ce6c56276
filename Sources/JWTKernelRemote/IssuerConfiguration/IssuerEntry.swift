public import JWTKernel

/// One issuer as every configuration surface writes it: an entry of the issuer file (`jwtk verify
/// --issuer-config`, `jwtk-forward-auth`) and the C library's verifier config (and so nginx's `jwtk_*`
/// directives, Python, HAProxy, Envoy and Apache). The members, their names, their aliases and the rules
/// between them are decided here and nowhere else (`IssuerEntry+JSON.swift` reads them), so a
/// configuration means the same on every surface. docs/C-API.md lists the members.
public struct IssuerEntry: Sendable {
    /// `"issuers"` (or `"issuer"`, one): the token issuers this entry accepts. With `"provider"`, empty:
    /// the preset names its issuers.
    public var issuers: [String] = []
    /// `"provider"`: a preset's name (`ProviderPreset.names`).
    public var provider: String?
    /// `"tenant"` (alias `"tenant_id"`): Microsoft's tenant; without it, the multi-tenant preset.
    public var tenant: String?
    /// `"project_id"`: Firebase's project (default: the first audience).
    public var projectID: String?
    /// `"channel_secret"`: LINE web login's HS256 channel secret.
    public var channelSecret: String?
    /// `"audiences"`; nil when not given.
    public var audiences: [String]?
    /// `"algorithms"`; with a provider, they narrow the preset's (never widen them).
    public var algorithms: AlgorithmSet?
    /// The claim checks given: applied over a preset's policy or a plain issuer's.
    public var checks = Checks()
    /// Where the keys come from and on what schedule.
    public var keys = KeyMembers()
    /// How the configuration spelled the members that have an alias, so a message names what was written.
    var issuersMember = "issuers", tenantMember = "tenant"

    public init() {}

    /// `"leeway"`, `"require_exp"`, `"reject_iat_in_future"`, `"max_age"`, `"required_claims"`, `"nonce"`,
    /// `"typ"`, `"claims"`: nil when not given, so a preset's value stays.
    public struct Checks: Sendable {
        public var leeway: Int64?
        public var requireExpiration: Bool?
        public var rejectIssuedInFuture: Bool?
        public var maxAge: Int64?
        public var requiredClaims: [String]?
        public var nonce: String?
        public var type: String?
        public var claimRequirements: [ClaimRequirement]?

        public init() {}

        /// `policy` with every check given here set.
        public func applied(to policy: ClaimsPolicy) -> ClaimsPolicy {
            var p = policy
            if let leeway { p.leeway = leeway }
            if let requireExpiration { p.requireExpiration = requireExpiration }
            if let rejectIssuedInFuture { p.rejectIssuedInFuture = rejectIssuedInFuture }
            if let maxAge { p.maxAge = maxAge }
            if let requiredClaims { p.requiredClaims = requiredClaims }
            if let nonce { p.expectedNonce = nonce }
            if let type { p.expectedType = type }
            if let claimRequirements { p.claimRequirements = claimRequirements }
            return p
        }
    }

    /// `"jwks_url"`, `"discovery"`, `"pull"` and the fetch schedule: `"cooldown"`, `"max_staleness"`,
    /// `"refresh_min"`, `"refresh_max"` (seconds).
    public struct KeyMembers: Sendable {
        public var jwksURL: String?
        public var discovery: Bool?
        public var pull: Bool?
        public var cooldown: Int64?
        public var maxStaleness: Int64?
        public var refreshMin: Int64?
        public var refreshMax: Int64?

        public init() {}

        /// Whether any schedule member was given.
        public var hasSchedule: Bool {
            cooldown != nil || maxStaleness != nil || refreshMin != nil || refreshMax != nil
        }

        /// The fetch schedule these members give over `RefreshPolicy`'s defaults.
        public func refreshPolicy() throws(IssuerConfigurationError) -> RefreshPolicy {
            var refresh = RefreshPolicy()
            if let cooldown { refresh.unknownKidCooldown = Double(cooldown) }
            if let maxStaleness { refresh.maxStaleness = Double(maxStaleness) }
            if let refreshMin { refresh.minMaxAge = Double(refreshMin) }
            if let refreshMax { refresh.maxMaxAge = Double(refreshMax) }
            guard refresh.minMaxAge <= refresh.maxMaxAge else {
                throw IssuerConfigurationError("\"refresh_min\": must not exceed \"refresh_max\"")
            }
            // Without max-age the document lives 10 min, clamped into the configured range.
            refresh.defaultMaxAge = min(max(refresh.defaultMaxAge, refresh.minMaxAge), refresh.maxMaxAge)
            return refresh
        }
    }

    /// The preset `"provider"` names, with this entry's audiences, tenant, project and channel secret
    /// (`ProviderPreset.named`, the one provider table); nil without a provider.
    public func preset() throws(IssuerConfigurationError) -> ProviderPreset? {
        guard let provider else { return nil }
        // Firebase's audience is its project: "project_id" alone gives both (an explicit empty "audiences"
        // stays empty, and is refused).
        let audiences = audiences ?? (provider == "firebase" ? projectID.map { [$0] } ?? [] : [])
        return try ProviderPreset.named(
            provider, audiences: audiences, tenant: tenant, projectID: projectID, channelSecret: channelSecret)
    }

    /// The routes this entry gives a `MultiIssuerVerifier`: a preset's (its policy with this entry's
    /// checks and algorithms), or one per issuer sharing the first issuer's keys. `base` holds what a
    /// caller adds to every entry (`ClaimsPolicy.adding(_:)`); this entry's own checks win over it.
    public func routes(base: ClaimsPolicy = ClaimsPolicy()) throws(IssuerConfigurationError) -> [IssuerConfiguration] {
        if let preset = try preset() {
            return preset.issuers.map { route in
                var route = route
                route.policy = self.policy(over: route.policy.adding(base))
                return route
            }
        }
        let policy = issuerPolicy(base: base)
        return issuers.map { IssuerConfiguration(issuer: $0, policy: policy, keyIssuer: issuers[0]) }
    }

    /// An entry without a provider: `base` with this entry's issuers, audiences, algorithms and checks.
    public func issuerPolicy(base: ClaimsPolicy = ClaimsPolicy()) -> ClaimsPolicy {
        var policy = base
        policy.issuers = issuers
        policy.audiences = audiences ?? []
        if let algorithms { policy.algorithms = algorithms }
        return checks.applied(to: policy)
    }

    /// A preset route's policy with this entry's checks, and its algorithms narrowed to this entry's.
    public func policy(over presetPolicy: ClaimsPolicy) -> ClaimsPolicy {
        var p = checks.applied(to: presetPolicy)
        if let algorithms { p.algorithms = AlgorithmSet(p.algorithms.algorithms.filter { algorithms.contains($0) }) }
        return p
    }
}
