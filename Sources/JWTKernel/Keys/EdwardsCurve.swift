/// The curves JWS signs with over EdDSA (RFC 8037).
public enum EdwardsCurve: String, Sendable {
    case ed25519 = "Ed25519", ed448 = "Ed448"

    var publicKeyLength: Int { self == .ed25519 ? 32 : 57 }
    var signatureLength: Int { self == .ed25519 ? 64 : 114 }
}
