// The presets' first labels, one per provider's word for the audience (`audience:`, `clientIDs:`, `appIDs:`,
// `channelIDs:`), kept so code written against them still builds: every preset now says `audiences:`, the
// word every configuration surface uses for the same idea. (LINE's `ProviderPreset.line(channelID:)` keeps
// its label: it takes one channel, the one its secret belongs to.)

extension ClaimsPolicy {
    @available(*, deprecated, renamed: "apple(audiences:nonce:)")
    public static func apple(audience: [String], nonce: String? = nil) -> ClaimsPolicy {
        apple(audiences: audience, nonce: nonce)
    }

    @available(*, deprecated, renamed: "appleServerNotifications(audiences:)")
    public static func appleServerNotifications(audience: [String]) -> ClaimsPolicy {
        appleServerNotifications(audiences: audience)
    }

    @available(*, deprecated, renamed: "google(audiences:nonce:)")
    public static func google(clientIDs: [String], nonce: String? = nil) -> ClaimsPolicy {
        google(audiences: clientIDs, nonce: nonce)
    }

    @available(*, deprecated, renamed: "facebook(audiences:nonce:)")
    public static func facebook(appIDs: [String], nonce: String? = nil) -> ClaimsPolicy {
        facebook(audiences: appIDs, nonce: nonce)
    }

    @available(*, deprecated, renamed: "line(audiences:nonce:)")
    public static func line(channelIDs: [String], nonce: String? = nil) -> ClaimsPolicy {
        line(audiences: channelIDs, nonce: nonce)
    }

    @available(*, deprecated, renamed: "microsoft(tenantID:audiences:)")
    public static func microsoft(tenantID: String, clientIDs: [String]) -> ClaimsPolicy {
        microsoft(tenantID: tenantID, audiences: clientIDs)
    }
}

extension ProviderPreset {
    @available(*, deprecated, renamed: "apple(audiences:nonce:)")
    public static func apple(audience: [String], nonce: String? = nil) -> ProviderPreset {
        apple(audiences: audience, nonce: nonce)
    }

    @available(*, deprecated, renamed: "google(audiences:nonce:)")
    public static func google(clientIDs: [String], nonce: String? = nil) -> ProviderPreset {
        google(audiences: clientIDs, nonce: nonce)
    }

    @available(*, deprecated, renamed: "facebook(audiences:nonce:)")
    public static func facebook(appIDs: [String], nonce: String? = nil) -> ProviderPreset {
        facebook(audiences: appIDs, nonce: nonce)
    }

    @available(*, deprecated, renamed: "microsoft(tenantID:audiences:)")
    public static func microsoft(tenantID: String, clientIDs: [String]) -> ProviderPreset {
        microsoft(tenantID: tenantID, audiences: clientIDs)
    }

    @available(*, deprecated, renamed: "microsoftMultiTenant(audiences:)")
    public static func microsoftMultiTenant(clientIDs: [String]) -> ProviderPreset {
        microsoftMultiTenant(audiences: clientIDs)
    }
}
