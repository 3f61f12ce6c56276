extension VerificationKey {
    /// What verifies: a public key or an HMAC secret, each owning its OpenSSL or
    /// secret memory, so releasing the last reference frees it.
    ///
    /// A kind plus one plain reference rather than a two-case enum: Swift keeps a
    /// multi-payload enum's case in its references' spare high bits, which
    /// LeakSanitizer cannot follow, so every HMAC key would be reported as leaked
    /// and the leak checks of the tests and fuzzers would be blind or noisy.
    // Safety: @unchecked because `object` is typed AnyObject; it is always an OpenSSLPublicKey or an
    // HMACSecret (both Sendable, immutable) as `kind` says, fixed at init.
    struct Material: @unchecked Sendable {
        enum Kind { case publicKey, secret }

        let kind: Kind
        private let object: AnyObject

        static func publicKey(_ key: OpenSSLPublicKey) -> Material { Material(kind: .publicKey, object: key) }
        static func secret(_ secret: HMACSecret) -> Material { Material(kind: .secret, object: secret) }

        @inline(__always)
        var publicKey: OpenSSLPublicKey? {
            kind == .publicKey ? unsafeDowncast(object, to: OpenSSLPublicKey.self) : nil
        }

        @inline(__always)
        var secret: HMACSecret? { kind == .secret ? unsafeDowncast(object, to: HMACSecret.self) : nil }
    }
}
