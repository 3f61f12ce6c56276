import JWTKernel

/// The key store's content at one moment: immutable, so verifiers read it without a lock.
/// A load builds a new snapshot and the store swaps it in.
final class KeySnapshot: Sendable {
    /// Increases with every publication; verifiers rebuild their routes when it changes.
    let generation: UInt64
    /// Keys loaded with a NULL issuer: they verify tokens of any issuer that has no keys of its own.
    let anyIssuer: JWKSet?
    let byIssuer: [IssuerName: JWKSet]

    init(generation: UInt64, anyIssuer: JWKSet?, byIssuer: [IssuerName: JWKSet]) {
        self.generation = generation
        self.anyIssuer = anyIssuer
        self.byIssuer = byIssuer
    }

    static let empty = KeySnapshot(generation: 0, anyIssuer: nil, byIssuer: [:])

    /// The same content with `issuer`'s keys replaced (nil: the any-issuer keys).
    func replacing(_ issuer: IssuerName?, with keys: JWKSet) -> KeySnapshot {
        guard let issuer else { return KeySnapshot(generation: generation + 1, anyIssuer: keys, byIssuer: byIssuer) }
        var map = byIssuer
        map[issuer] = keys
        return KeySnapshot(generation: generation + 1, anyIssuer: anyIssuer, byIssuer: map)
    }

    var keyCount: Int { (anyIssuer?.keys.count ?? 0) + byIssuer.values.reduce(0) { $0 + $1.keys.count } }
}
