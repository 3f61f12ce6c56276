public import JWTKernel

extension IssuerEntry {
    /// The members every surface reads, canonical names first; `"issuer"` and `"tenant_id"` are aliases
    /// (of `"issuers"` with one issuer, and of `"tenant"`), kept so configurations written for the issuer
    /// file and for the C library before they shared this schema keep working (CHANGELOG).
    public static let memberNames = [
        "issuers", "issuer", "provider", "tenant", "tenant_id", "project_id", "channel_secret", "audiences",
        "algorithms", "leeway", "require_exp", "reject_iat_in_future", "max_age", "required_claims", "nonce", "typ",
        "claims", "jwks_url", "discovery", "pull", "cooldown", "max_staleness", "refresh_min", "refresh_max",
    ]

    /// The most names `"required_claims"` may hold (the C library's fixed claims export has room for these).
    public static let maxRequiredClaims = 64

    /// Reads one entry from `value`, a JSON object. `extra` is offered each member this schema does not
    /// know, before it is refused: a surface's own members (the C library's `"cache"`), answered true
    /// when taken. Then the rules between members are checked (`validate`).
    public init(
        parsing value: JSONValue,
        extra: (String, JSONValue) throws(IssuerConfigurationError) -> Bool = { _, _ in false }
    ) throws(IssuerConfigurationError) {
        guard let members = value.objectValue else { throw IssuerConfigurationError("expected an object") }
        self.init()
        var seen = Set<String>()
        for member in members {
            if try read(member.name, member.value) {
                seen.insert(member.name)
            } else if try !extra(member.name, member.value) {
                throw IssuerConfigurationError("unknown member \"\(member.name)\"")
            }
        }
        try Self.aliases(seen)
        try validate(given: seen)
    }

    /// Sets the member `name`; false when it is not one of this schema's.
    private mutating func read(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> Bool {
        typealias M = ConfigMember
        let seconds: ClosedRange<Int64> = 1...(366 * 86_400)
        switch name {
        case "issuers": issuers = try M.strings(name, value)
        case "issuer":
            issuers = [try M.string(name, value)]
            issuersMember = name
        case "provider": provider = try M.string(name, value)
        case "tenant", "tenant_id":
            tenant = try M.string(name, value)
            tenantMember = name
        case "project_id": projectID = try M.string(name, value)
        case "channel_secret": channelSecret = try M.string(name, value)
        case "audiences": audiences = try M.strings(name, value)
        case "algorithms": algorithms = try M.algorithms(name, value)
        case "leeway": checks.leeway = try M.integer(name, value, 0...Int64(Int32.max))
        case "require_exp": checks.requireExpiration = try M.bool(name, value)
        case "reject_iat_in_future": checks.rejectIssuedInFuture = try M.bool(name, value)
        case "max_age": checks.maxAge = try M.integer(name, value, 1...Int64(Int32.max))
        case "required_claims":
            let names = try M.strings(name, value)
            guard names.count <= Self.maxRequiredClaims else {
                throw IssuerConfigurationError("\"required_claims\": at most \(Self.maxRequiredClaims) names")
            }
            checks.requiredClaims = names
        case "nonce": checks.nonce = try M.string(name, value)
        case "typ": checks.type = try M.string(name, value)
        case "claims": checks.claimRequirements = try ClaimRequirementsMember.parse(value)
        case "jwks_url": keys.jwksURL = try M.string(name, value)
        case "discovery": keys.discovery = try M.bool(name, value)
        case "pull": keys.pull = try M.bool(name, value)
        // Lower bounds: no schedule can refetch without pause (RefreshPolicy.Bounds, whose upper bounds these match).
        case "cooldown": keys.cooldown = try M.integer(name, value, 1...86_400)
        case "max_staleness": keys.maxStaleness = try M.integer(name, value, seconds)
        case "refresh_min": keys.refreshMin = try M.integer(name, value, seconds)
        case "refresh_max": keys.refreshMax = try M.integer(name, value, seconds)
        default: return false
        }
        return true
    }

    /// An alias beside the member it stands for would leave one of them unread.
    private static func aliases(_ seen: Set<String>) throws(IssuerConfigurationError) {
        for (alias, canonical) in [("issuer", "issuers"), ("tenant_id", "tenant")]
        where seen.contains(alias) && seen.contains(canonical) {
            throw IssuerConfigurationError("\"\(alias)\": the same as \"\(canonical)\"; give one")
        }
    }

    /// The rules between members, the same on every surface.
    private func validate(given: Set<String>) throws(IssuerConfigurationError) {
        if keys.pull == false, keys.jwksURL != nil {
            throw IssuerConfigurationError("\"pull\": false contradicts \"jwks_url\" (drop one)")
        }
        if keys.pull == false, keys.discovery == true {
            throw IssuerConfigurationError("\"pull\": false contradicts \"discovery\": true (drop one)")
        }
        if keys.discovery == true {
            // The document names the key URL; a second one, or a preset's, would leave it ambiguous.
            if let provider {
                throw IssuerConfigurationError(
                    "\"discovery\": not with provider \(provider) (its preset knows the key URL; \"jwks_url\" for a mirror)"
                )
            }
            if keys.jwksURL != nil {
                throw IssuerConfigurationError("\"discovery\": true finds the key URL; drop \"jwks_url\"")
            }
            guard issuers.count == 1 else {
                throw IssuerConfigurationError(
                    "\"discovery\": needs \"issuers\" (or \"issuer\") naming exactly one issuer")
            }
            do { _ = try OpenIDDiscovery(issuer: issuers[0]) } catch {
                throw IssuerConfigurationError("\"discovery\": \(error.message)")
            }
        }
        // Each provider's own member, named as written: beside another provider it would be ignored.
        for (value, name, owner) in [
            (tenant, tenantMember, "microsoft"), (projectID, "project_id", "firebase"),
            (channelSecret, "channel_secret", "line"),
        ] where value != nil && provider != owner {
            throw IssuerConfigurationError("\"\(name)\": only with provider \(owner)")
        }
        guard let provider else { return }
        // The preset decides its issuers: taking others silently, or dropping them, would both surprise.
        if given.contains(issuersMember) {
            throw IssuerConfigurationError("\"\(issuersMember)\": provider \(provider) sets its issuers")
        }
        let preset = try preset()
        if let algorithms, let preset {
            let signs = preset.issuers[0].policy.algorithms
            for alg in algorithms.algorithms where !signs.contains(alg) {
                throw IssuerConfigurationError(
                    "\"algorithms\": provider \(provider) does not sign with \(alg.rawValue) (\(signs.algorithms.map(\.rawValue).joined(separator: ", ")))"
                )
            }
        }
    }
}
