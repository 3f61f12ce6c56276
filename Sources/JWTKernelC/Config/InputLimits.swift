/// Upper bounds on caller-given lengths (jwtk.h, "SIZES"). They keep every length far below
/// `Int.max`, so no buffer view built from a caller's (pointer, length) can trap.
enum InputLimits {
    static let config = 1 << 20
    static let keySet = 16 << 20
    /// Documents in one jwtk_keystore_load_jwks_many call.
    static let keySetDocuments = 1024
    static let issuer = 4096
    static let claimName = 1024
    static let batch = 1 << 24
    static let maxTokenSize = 1 << 30
}
