public import JWTKernel

extension ProviderPreset {
    /// The preset a configuration names (`apple`, `google`, `firebase`, `facebook`, `line`, `microsoft`),
    /// with its client, app, project or channel IDs as `audiences`; `tenant` for Microsoft only (none: the
    /// multi-tenant preset, `iss` checked against `tid`).
    public static func named(
        _ name: String, audiences: [String], tenant: String? = nil
    ) throws(IssuerConfigurationError) -> ProviderPreset {
        guard names.contains(name) else {
            throw IssuerConfigurationError("unknown provider \(name) (\(names.joined(separator: ", ")))")
        }
        if let problem = audienceProblem(provider: name, audiences: audiences) {
            throw IssuerConfigurationError("\(problem); give \"audiences\"")
        }
        switch name {
        case "apple": return .apple(audience: audiences)
        case "google": return .google(clientIDs: audiences)
        case "firebase": return .firebase(projectID: audiences[0])
        case "facebook": return .facebook(appIDs: audiences)
        case "line":
            do { return try .line(channelID: audiences[0]) } catch {
                throw IssuerConfigurationError("provider line: \(error)")
            }
        case "microsoft":
            return tenant.map { .microsoft(tenantID: $0, clientIDs: audiences) }
                ?? .microsoftMultiTenant(clientIDs: audiences)
        default:
            preconditionFailure("\(name) is in `names` but not in this switch")
        }
    }

    /// The provider names a configuration may give.
    public static let names = ["apple", "google", "firebase", "facebook", "line", "microsoft"]
}
