public import JWTKernel

extension ProviderPreset {
    /// The preset a configuration names (`apple`, `google`, `firebase`, `facebook`, `line`, `microsoft`),
    /// with its client, app, project or channel IDs as `audiences`; `tenant` for Microsoft only (none: the
    /// multi-tenant preset, `iss` checked against `tid`).
    public static func named(
        _ name: String, audiences: [String], tenant: String? = nil
    ) throws(IssuerConfigurationError) -> ProviderPreset {
        guard !audiences.isEmpty else {
            throw IssuerConfigurationError("provider \(name) needs audiences (its client, app, project or channel ID)")
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
            throw IssuerConfigurationError(
                "unknown provider \(name) (apple, google, firebase, facebook, line, microsoft)")
        }
    }
}
