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
    func verify(_ message: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        guard tag.count == inner.outputLength else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buf in
            let innerHash = buf.baseAddress!, mac = buf.baseAddress! + 64
            var i = inner
            i.update(message)
            i.finish(into: innerHash)
            var o = outer
            o.update(UnsafeRawBufferPointer(start: innerHash, count: i.outputLength))
            o.finish(into: mac)
            return CRYPTO_memcmp(mac, tag.baseAddress, tag.count) == 0
        }
    }
}
