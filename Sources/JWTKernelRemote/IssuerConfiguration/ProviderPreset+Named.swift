public import JWTKernel

extension ProviderPreset {
    /// The preset a configuration names (`apple`, `google`, `firebase`, `facebook`, `line`, `microsoft`): the
    /// one provider table of every configuration surface (`--issuer-config` and the forward-auth agent, `jwtk
    /// verify --provider`, the C library's `"provider"` and so nginx's `jwtk_provider` and Python).
    ///
    /// - `audiences`: the client, app, project or channel IDs tokens must be issued to; required (a preset
    ///   without one would admit the provider's tokens for every application: `audienceProblem`).
    /// - `tenant`: Microsoft only; none gives the multi-tenant preset (`iss` checked against `tid`).
    /// - `projectID`: Firebase only, its project (default: the first audience, which must then be it).
    /// - `channelSecret`: LINE only, web login's HS256 channel secret (none: ES256 tokens only).
    public static func named(
        _ name: String, audiences: [String], tenant: String? = nil, projectID: String? = nil,
        channelSecret: String? = nil
    ) throws(IssuerConfigurationError) -> ProviderPreset {
        guard names.contains(name) else {
            throw IssuerConfigurationError("unknown provider \(name) (\(names.joined(separator: ", ")))")
        }
        if tenant != nil, name != "microsoft" {
            throw IssuerConfigurationError("a tenant: only with provider microsoft")
        }
        if projectID != nil, name != "firebase" {
            throw IssuerConfigurationError("a project ID: only with provider firebase")
        }
        if channelSecret != nil, name != "line" {
            throw IssuerConfigurationError("a channel secret: only with provider line")
        }
        if let problem = audienceProblem(provider: name, audiences: audiences) {
            let give = name == "firebase" ? "give \"project_id\" or \"audiences\"" : "give \"audiences\""
            throw IssuerConfigurationError("\(problem); \(give)")
        }
        switch name {
        case "apple": return .apple(audiences: audiences)
        case "google": return .google(audiences: audiences)
        case "firebase": return .firebase(projectID: projectID ?? audiences[0])
        case "facebook": return .facebook(audiences: audiences)
        case "line":
            do { return try .line(channelID: audiences[0], channelSecret: channelSecret) } catch {
                // Only the channel secret can be refused here: name it as a configuration writes it.
                throw IssuerConfigurationError("provider line: \"channel_secret\": \(error)")
            }
        case "microsoft":
            return tenant.map { .microsoft(tenantID: $0, audiences: audiences) }
                ?? .microsoftMultiTenant(audiences: audiences)
        default:
            preconditionFailure("\(name) is in `names` but not in this switch")
        }
    }

    /// The provider names a configuration may give.
    public static let names = ["apple", "google", "firebase", "facebook", "line", "microsoft"]
}
