/// Exact keys of the member names the hot path acts on, as integer literals so
/// that matching a name is a switch over constants (no lazy globals, no byte
/// compares). `RegisteredNameKeyTests` checks each against `JSONNameKey(_:)`.
extension JSONNameKey {
    // Claims (RFC 7519 §4.1, OpenID Connect).
    static let iss: UInt64 = 0x0300_0000_0073_7369
    static let sub: UInt64 = 0x0300_0000_0062_7573
    static let aud: UInt64 = 0x0300_0000_0064_7561
    static let exp: UInt64 = 0x0300_0000_0070_7865
    static let nbf: UInt64 = 0x0300_0000_0066_626E
    static let iat: UInt64 = 0x0300_0000_0074_6169
    static let jti: UInt64 = 0x0300_0000_0069_746A
    static let nonce: UInt64 = 0x0500_0065_636E_6F6E
    static let azp: UInt64 = 0x0300_0000_0070_7A61
    // Header (RFC 7515 §4.1, RFC 7797).
    static let alg: UInt64 = 0x0300_0000_0067_6C61
    static let kid: UInt64 = 0x0300_0000_0064_696B
    static let typ: UInt64 = 0x0300_0000_0070_7974
    static let crit: UInt64 = 0x0400_0000_7469_7263
    static let b64: UInt64 = 0x0300_0000_0034_3662
}
