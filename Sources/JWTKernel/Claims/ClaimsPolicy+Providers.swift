/// Claims policies for the identity providers mobile apps sign in with.
/// Issuers and algorithms are the providers' published ones; see
/// ../shared/notes/providers.md for the traps each preset avoids.
extension ClaimsPolicy {
    /// A provider's policy: its audience is required (`audienceRequired`), so an empty client ID list
    /// admits no token instead of every application's.
    private static func provider(
        _ algorithms: [JWTAlgorithm], issuers: [String], audiences: [String], requiredClaims: [String],
        nonce: String? = nil
    ) -> ClaimsPolicy {
        var policy = ClaimsPolicy(
            algorithms: AlgorithmSet(algorithms), issuers: issuers, audiences: audiences,
            requiredClaims: requiredClaims, expectedNonce: nonce)
        policy.audienceRequired = true
        return policy
    }

    /// Sign in with Apple identity tokens. `audiences`: the bundle ID or Services ID.
    /// Apple's `nonce` is the SHA-256 of the app's raw nonce, as the app sent it.
    public static func apple(audiences: [String], nonce: String? = nil) -> ClaimsPolicy {
        provider(
            [.rs256], issuers: ["https://appleid.apple.com"], audiences: audiences, requiredClaims: ["sub", "iat"],
            nonce: nonce)
    }

    /// Sign in with Apple server-to-server notifications (`AppleServerNotification`): Apple's keys and issuer, as
    /// `apple(audiences:nonce:)`, but no `sub` required (the user is inside the `events` claim) and no nonce.
    /// `audiences`: the app's bundle ID (the primary App ID the notification endpoint is registered on).
    public static func appleServerNotifications(audiences: [String]) -> ClaimsPolicy {
        provider(
            [.rs256], issuers: ["https://appleid.apple.com"], audiences: audiences, requiredClaims: ["iat", "events"])
    }

    /// Google ID tokens. Google issues both spellings of its issuer.
    public static func google(audiences: [String], nonce: String? = nil) -> ClaimsPolicy {
        provider(
            [.rs256], issuers: ["https://accounts.google.com", "accounts.google.com"], audiences: audiences,
            requiredClaims: ["sub", "iat"], nonce: nonce)
    }

    /// Firebase Auth ID tokens: issuer and audience are both derived from the project ID.
    public static func firebase(projectID: String) -> ClaimsPolicy {
        provider(
            [.rs256], issuers: ["https://securetoken.google.com/\(projectID)"], audiences: [projectID],
            requiredClaims: ["sub", "iat", "auth_time"])
    }

    /// Facebook Limited Login tokens; both issuer spellings have been seen.
    public static func facebook(audiences: [String], nonce: String? = nil) -> ClaimsPolicy {
        provider(
            [.rs256], issuers: ["https://www.facebook.com", "https://facebook.com"], audiences: audiences,
            requiredClaims: ["sub"], nonce: nonce)
    }

    /// LINE Login: ES256 with LINE's JWKS (native SDK / LIFF), or HS256 with the
    /// channel secret (web login); pass the key set that matches.
    public static func line(audiences: [String], nonce: String? = nil) -> ClaimsPolicy {
        provider(
            [.es256, .hs256], issuers: ["https://access.line.me"], audiences: audiences, requiredClaims: ["sub"],
            nonce: nonce)
    }

    /// Microsoft identity platform tokens for one tenant (v2.0 and v1 issuers).
    public static func microsoft(tenantID: String, audiences: [String]) -> ClaimsPolicy {
        provider(
            [.rs256],
            issuers: ["https://login.microsoftonline.com/\(tenantID)/v2.0", "https://sts.windows.net/\(tenantID)/"],
            audiences: audiences, requiredClaims: ["sub"])
    }
}
