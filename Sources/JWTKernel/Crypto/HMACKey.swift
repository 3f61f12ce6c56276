internal import COpenSSL

/// An HMAC key with its inner and outer hash states precomputed (RFC 2104):
/// each verification copies the two states onto the stack and hashes the
/// message once, instead of re-deriving the padded key blocks and fetching a
/// MAC implementation as OpenSSL's one-shot `HMAC()` does on every call.
///
/// A class over raw memory rather than a struct of `SHA2State` enums: reaching
/// the struct through `HMACSecret`'s optional copied all of it (441 bytes), and
/// each enum payload once more (SHA-512-sized, 216 bytes), per token. Now a token
/// copies exactly the two contexts its hash needs, as the OpenSSL floor does.
// Safety: @unchecked because of the raw `states` memory: written only in init, read-only until deinit wipes and
// frees it.
final class HMACKey: @unchecked Sendable {
    let outputLength: Int
    /// The inner context, then the outer one, each `MemoryLayout<SHA512_CTX>.stride` bytes apart
    /// (a SHA256_CTX for HS256, a SHA512_CTX for HS384 and HS512).
    private let states: UnsafeMutableRawPointer
    private static let slot = MemoryLayout<SHA512_CTX>.stride

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
        outputLength = hashLength
        states = .allocate(byteCount: 2 * Self.slot, alignment: 16)
        Self.store(inner, at: states)
        Self.store(outer, at: states + Self.slot)
        // Best effort: leave no copy of the key, padded or XORed (both give it back), in freed memory.
        func wipe(_ bytes: inout [UInt8]) { bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, $0.count) } }
        wipe(&block)
        wipe(&ipad)
        wipe(&opad)
    }

    deinit {
        // The states give the key's MAC back as well as the key would: wipe them too.
        OPENSSL_cleanse(states, 2 * Self.slot)
        states.deallocate()
    }

    private static func store(_ state: SHA2State, at p: UnsafeMutableRawPointer) {
        switch state {
        case .sha256(let c): p.initializeMemory(as: SHA256_CTX.self, repeating: c, count: 1)
        case .sha384(let c), .sha512(let c): p.initializeMemory(as: SHA512_CTX.self, repeating: c, count: 1)
        }
    }

    /// Verifies `tag` over `message` in constant time (for equal lengths).
    @inline(__always)
    func verify(_ message: UnsafeRawBufferPointer, tag: UnsafeRawBufferPointer) -> Bool {
        guard tag.count == outputLength, let input = message.baseAddress ?? tag.baseAddress else { return false }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 128) { buf in
            let innerHash = buf.baseAddress!, mac = buf.baseAddress! + 64
            switch outputLength {
            case 32:
                var i = states.load(as: SHA256_CTX.self)
                var o = (states + Self.slot).load(as: SHA256_CTX.self)
                SHA256_Update(&i, input, message.count)
                SHA256_Final(innerHash, &i)
                SHA256_Update(&o, innerHash, 32)
                SHA256_Final(mac, &o)
            case 48:
                var i = states.load(as: SHA512_CTX.self)
                var o = (states + Self.slot).load(as: SHA512_CTX.self)
                SHA384_Update(&i, input, message.count)
                SHA384_Final(innerHash, &i)
                SHA384_Update(&o, innerHash, 48)
                SHA384_Final(mac, &o)
            default:
                var i = states.load(as: SHA512_CTX.self)
                var o = (states + Self.slot).load(as: SHA512_CTX.self)
                SHA512_Update(&i, input, message.count)
                SHA512_Final(innerHash, &i)
                SHA512_Update(&o, innerHash, 64)
                SHA512_Final(mac, &o)
            }
            return CRYPTO_memcmp(mac, tag.baseAddress, tag.count) == 0
        }
    }
}
