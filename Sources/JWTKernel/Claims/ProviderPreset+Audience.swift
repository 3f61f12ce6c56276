/// A preset admits only the ID tokens issued to the application's own audience. Without one it would admit
/// the provider's tokens for every application on the internet (OpenID Connect Core §3.1.3.7, step 3), so
/// every surface refuses such a configuration with `audienceProblem`'s words, and the presets' policies set
/// `ClaimsPolicy.audienceRequired`, so a preset that slipped through still fails closed.
extension ProviderPreset {
    /// The audiences the preset accepts: its client, app, project or channel IDs.
    public var audiences: [String] { issuers.first?.policy.audiences ?? [] }

    /// Why this preset must not be used as configured (it names no audience, or an empty one), or nil.
    public var audienceProblem: String? { Self.audienceProblem(provider: provider, audiences: audiences) }

    /// The same check for a configuration naming a provider (`provider` as in `ProviderPreset.provider`,
    /// or as a configuration names it) before or without building its preset.
    public static func audienceProblem(provider: String, audiences: [String]) -> String? {
        guard audiences.isEmpty || audiences.contains("") else { return nil }
        let what = audienceName(provider: provider)
        let missing = audiences.isEmpty ? "needs its audience" : "has an empty audience"
        return
            "provider \(provider) \(missing) (\(what)): without one, the provider's ID tokens issued to any application would be accepted"
    }

    /// What each provider calls the audience of its tokens, in the words of its console.
    public static func audienceName(provider: String) -> String {
        switch provider {
        case "apple": "the app's bundle ID or Services ID"
        case "google": "the app's OAuth client IDs"
        case "firebase": "the Firebase project ID"
        case "facebook": "the app ID"
        case "line": "the channel ID"
        case "microsoft", "microsoft-multitenant": "the application (client) ID"
        default: "the client IDs its tokens are issued to"
        }
    }
}
