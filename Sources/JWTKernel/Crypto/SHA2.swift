internal import COpenSSL

/// SHA-2 through OpenSSL's low-level API on caller-owned state: a context is
/// a plain value, so hashing needs no allocation and no provider lookup, and
/// a keyed HMAC state can be copied per call instead of rebuilt.
enum SHA2State {
    case sha256(SHA256_CTX)
    case sha384(SHA512_CTX)
    case sha512(SHA512_CTX)

    init(hashLength: Int) {
        switch hashLength {
        case 32: var c = SHA256_CTX(); SHA256_Init(&c); self = .sha256(c)
        case 48: var c = SHA512_CTX(); SHA384_Init(&c); self = .sha384(c)
        default: var c = SHA512_CTX(); SHA512_Init(&c); self = .sha512(c)
        }
    }

    /// Input block size (HMAC pads keys to it).
    var blockSize: Int {
        if case .sha256 = self { return 64 }
        return 128
    }

    var outputLength: Int {
        switch self {
        case .sha256: 32
        case .sha384: 48
        case .sha512: 64
        }
    }

    mutating func update(_ data: UnsafeRawBufferPointer) {
        guard let base = data.baseAddress, !data.isEmpty else { return }
        switch self {
        case .sha256(var c): SHA256_Update(&c, base, data.count); self = .sha256(c)
        case .sha384(var c): SHA384_Update(&c, base, data.count); self = .sha384(c)
        case .sha512(var c): SHA512_Update(&c, base, data.count); self = .sha512(c)
        }
    }

    /// Writes `outputLength` bytes to `out`; the state is spent afterwards.
    mutating func finish(into out: UnsafeMutablePointer<UInt8>) {
        switch self {
        case .sha256(var c): SHA256_Final(out, &c)
        case .sha384(var c): SHA384_Final(out, &c)
        case .sha512(var c): SHA512_Final(out, &c)
        }
    }

    /// One-shot digest of `data` into `out` (at least 64 bytes); returns the length.
    static func digest(hashLength: Int, _ data: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<UInt8>) -> Int {
        var state = SHA2State(hashLength: hashLength)
        state.update(data)
        state.finish(into: out)
        return hashLength
    }
}
