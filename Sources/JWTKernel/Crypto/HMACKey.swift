internal import COpenSSL

/// An HMAC key with its inner and outer hash states precomputed (RFC 2104):
/// each verification copies two small structs and hashes the message once,
/// instead of re-deriving the padded key blocks and fetching a MAC
/// implementation as OpenSSL's one-shot `HMAC()` does on every call.
// Safety: @unchecked because the SHA-2 states are imported C structs; they are immutable `let`s, copied per call.
struct HMACKey: @unchecked Sendable {
    let inner: SHA2State
    let outer: SHA2State

    init(secret: [UInt8], hashLength: Int) {
        var inner = SHA2State(hashLength: hashLength)
        var outer = SHA2State(hashLength: hashLength)
        let blockSize = inner.blockSize
        var block = [UInt8](repeating: 0, count: blockSize)
        if secret.count > blockSize {
            // Keys longer than a block are hashed first.
            block.withUnsafeMutableBufferPointer { b in
                secret.withUnsafeBytes { _ = SHA2State.digest(hashLength: hashLength, $0, into: b.baseAddress!) }
            }
        } else {
            block.replaceSubrange(0..<secret.count, with: secret)
        }
        var ipad = block.map { $0 ^ 0x36 }
        var opad = block.map { $0 ^ 0x5c }
        ipad.withUnsafeBytes { inner.update($0) }
        opad.withUnsafeBytes { outer.update($0) }
        self.inner = inner
        self.outer = outer
        // Best effort: leave no copy of the key, padded or XORed (both give it back), in freed memory.
        func wipe(_ bytes: inout [UInt8]) { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        wipe(&block)
        wipe(&ipad)
        wipe(&opad)
    }

    /// Verifies `tag` over `message` in constant time (for equal lengths).
    ///
    /// Each state is copied exactly once (into a local the hash then runs on in
    /// place), as the OpenSSL floor does; going through `SHA2State.update`
    /// copied the state out of and back into the enum on every call.
    @inline(__always)
    func verify(_ message: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        guard tag.count == inner.outputLength, let input = message.baseAddress ?? tag.baseAddress else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buf in
            let innerHash = buf.baseAddress!, mac = buf.baseAddress! + 64
            switch inner {
            case .sha256(var i):
                guard case .sha256(var o) = outer else { return false }
                SHA256_Update(&i, input, message.count)
                SHA256_Final(innerHash, &i)
                SHA256_Update(&o, innerHash, 32)
                SHA256_Final(mac, &o)
            case .sha384(var i):
                guard case .sha384(var o) = outer else { return false }
                SHA384_Update(&i, input, message.count)
                SHA384_Final(innerHash, &i)
                SHA384_Update(&o, innerHash, 48)
                SHA384_Final(mac, &o)
            case .sha512(var i):
                guard case .sha512(var o) = outer else { return false }
                SHA512_Update(&i, input, message.count)
                SHA512_Final(innerHash, &i)
                SHA512_Update(&o, innerHash, 64)
                SHA512_Final(mac, &o)
            }
            return CRYPTO_memcmp(mac, tag.baseAddress, tag.count) == 0
        }
    }
}
