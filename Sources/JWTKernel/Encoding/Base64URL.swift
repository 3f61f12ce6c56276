internal import CJWTKernelSIMD

/// Strict, canonical base64url (RFC 4648 §5 without padding, RFC 7515 §2).
///
/// Rejected: the standard alphabet (`+`, `/`), padding, whitespace, a length
/// of 4n+1, and non-zero unused trailing bits. The last rule makes every byte
/// string have exactly one accepted encoding, so two different token strings
/// can never carry the same signed bytes.
public enum Base64URL {
    /// Bytes produced by decoding `count` characters, or nil for an impossible length.
    @_spi(Internals) @inlinable @inline(__always)
    public static func decodedCount(_ count: Int) -> Int? {
        switch count & 3 {
        case 0: return count / 4 * 3
        case 2: return count / 4 * 3 + 1
        case 3: return count / 4 * 3 + 2
        default: return nil
        }
    }

    /// Decodes `src` into `dst`, which must hold `decodedCount(src.count)` bytes.
    /// Returns the number of bytes written, or nil if `src` is not canonical base64url.
    /// Whole groups go through the vector unit when there is one (`CJWTKernelSIMD`);
    /// the rest, and every edge case, through the scalar loop below.
    @_spi(Internals)
    public static func decode(_ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawPointer) -> Int? {
        decode(src, into: dst, vectorized: true)
    }

    /// The vector unit `decode` uses: 2 AVX2, 1 SSSE3, 0 none (scalar only).
    @_spi(Internals)
    public static var vectorLevel: Int { Int(jkernel_simd_level()) }

    /// `vectorized: false` is the reference the fuzz harness holds the vector path to.
    @_spi(Internals)
    public static func decode(
        _ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawPointer, vectorized: Bool
    ) -> Int? {
        guard let outCount = decodedCount(src.count) else { return nil }
        if src.isEmpty { return 0 }
        var i = 0
        if vectorized {
            var invalid: Int32 = 0
            // Safety: the C loop reads only s[0..<src.count] and writes only inside d[0..<outCount] (see jkernel_simd.h).
            i = jkernel_base64url_decode_blocks(
                src.baseAddress!.assumingMemoryBound(to: UInt8.self), src.count,
                dst.assumingMemoryBound(to: UInt8.self), &invalid)
            if invalid != 0 { return nil }
        }
        return finish(src, into: dst, from: i) ? outCount : nil
    }

    /// A token's three segments at once, each into its own destination (which must hold
    /// `decodedCount` bytes): one vector dispatch for all three (`jkernel_base64url_decode_blocks3`),
    /// then the same scalar loop as `decode` on each tail. True iff all three are canonical
    /// base64url. `Base64URLVectorTests` and `FuzzBase64URL` hold it to three scalar decodes.
    @_spi(Internals)
    public static func decode(
        _ a: UnsafeRawBufferPointer, into da: UnsafeMutableRawPointer,
        _ b: UnsafeRawBufferPointer, into db: UnsafeMutableRawPointer,
        _ c: UnsafeRawBufferPointer, into dc: UnsafeMutableRawPointer
    ) -> Bool {
        guard decodedCount(a.count) != nil, decodedCount(b.count) != nil, decodedCount(c.count) != nil else {
            return false
        }
        var placeholder: UInt8 = 0
        return withUnsafeMutablePointer(to: &placeholder) { empty -> Bool in
            func bytes(_ p: UnsafeRawBufferPointer) -> UnsafePointer<UInt8> {
                p.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(empty)
            }
            var srcs: (UnsafePointer<UInt8>?, UnsafePointer<UInt8>?, UnsafePointer<UInt8>?) = (
                bytes(a), bytes(b), bytes(c)
            )
            var counts = (a.count, b.count, c.count)
            var dsts: (UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?, UnsafeMutablePointer<UInt8>?) = (
                da.assumingMemoryBound(to: UInt8.self), db.assumingMemoryBound(to: UInt8.self),
                dc.assumingMemoryBound(to: UInt8.self)
            )
            var consumed = (0, 0, 0)
            var invalid: Int32 = 0
            // Safety: each tuple is three contiguous values of the element type; the C loops read only
            // src[k][0..<n[k]] and write only inside dst[k][0..<decodedCount(n[k])] (see jkernel_simd.h).
            withUnsafeMutablePointer(to: &srcs) { sp in
                withUnsafeMutablePointer(to: &counts) { np in
                    withUnsafeMutablePointer(to: &dsts) { dp in
                        withUnsafeMutablePointer(to: &consumed) { cp in
                            jkernel_base64url_decode_blocks3(
                                UnsafeRawPointer(sp).assumingMemoryBound(to: UnsafePointer<UInt8>?.self),
                                UnsafeRawPointer(np).assumingMemoryBound(to: Int.self),
                                UnsafeRawPointer(dp).assumingMemoryBound(to: UnsafeMutablePointer<UInt8>?.self),
                                UnsafeMutableRawPointer(cp).assumingMemoryBound(to: Int.self), &invalid)
                        }
                    }
                }
            }
            return invalid == 0 && finish(a, into: da, from: consumed.0) && finish(b, into: db, from: consumed.1)
                && finish(c, into: dc, from: consumed.2)
        }
    }

    /// The scalar loop, the one place with the edge-case rules: whole groups from character
    /// `start` (a multiple of 4, where the vector loop stopped), then the last partial group
    /// with its trailing-bit rule. `src.count` must be a valid length (`decodedCount`).
    @inline(__always)
    private static func finish(
        _ src: UnsafeRawBufferPointer, into dst: UnsafeMutableRawPointer, from start: Int
    ) -> Bool {
        if src.isEmpty { return true }
        let s = src.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let d = dst.assumingMemoryBound(to: UInt8.self)
        var i = start
        return decodeTable.withUnsafeBufferPointer { table -> Bool in
            let full = src.count & ~3
            var bad: UInt8 = 0
            var o = i / 4 * 3
            while i < full {
                let a = table[Int(s[i])], b = table[Int(s[i + 1])]
                let c = table[Int(s[i + 2])], e = table[Int(s[i + 3])]
                bad |= a | b | c | e
                let v = UInt32(a) << 18 | UInt32(b) << 12 | UInt32(c) << 6 | UInt32(e)
                d[o] = UInt8(truncatingIfNeeded: v >> 16)
                d[o + 1] = UInt8(truncatingIfNeeded: v >> 8)
                d[o + 2] = UInt8(truncatingIfNeeded: v)
                i += 4
                o += 3
            }
            switch src.count - full {
            case 2:
                let a = table[Int(s[i])], b = table[Int(s[i + 1])]
                bad |= a | b
                // The 4 low bits of the last character carry no data and must be zero.
                if b & 0x0F != 0 { return false }
                d[o] = a << 2 | b >> 4
            case 3:
                let a = table[Int(s[i])], b = table[Int(s[i + 1])], c = table[Int(s[i + 2])]
                bad |= a | b | c
                if c & 0x03 != 0 { return false }
                d[o] = a << 2 | b >> 4
                d[o + 1] = b << 4 | c >> 2
            default:
                break
            }
            return bad & 0x80 == 0
        }
    }

    /// Convenience for cold paths (key loading, tests): decodes into a new array.
    public static func decode(_ text: some StringProtocol) -> [UInt8]? {
        decode(Array(text.utf8))
    }

    static func decode(_ src: [UInt8]) -> [UInt8]? {
        guard let n = decodedCount(src.count) else { return nil }
        if n == 0 { return [] }
        var out = [UInt8](repeating: 0, count: n)
        let written = src.withUnsafeBytes { s in out.withUnsafeMutableBytes { decode(s, into: $0.baseAddress!) } }
        return written == nil ? nil : out
    }

    /// Encodes without padding (used by the CLI and tests, never on the hot path).
    public static func encode(_ bytes: some Sequence<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let input = Array(bytes)
        var out = [UInt8]()
        out.reserveCapacity((input.count + 2) / 3 * 4)
        var i = 0
        while i + 3 <= input.count {
            let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8 | UInt32(input[i + 2])
            out += [
                alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)],
                alphabet[Int(v & 63)],
            ]
            i += 3
        }
        if input.count - i == 1 {
            let v = UInt32(input[i]) << 16
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)]]
        } else if input.count - i == 2 {
            let v = UInt32(input[i]) << 16 | UInt32(input[i + 1]) << 8
            out += [alphabet[Int(v >> 18 & 63)], alphabet[Int(v >> 12 & 63)], alphabet[Int(v >> 6 & 63)]]
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// 6-bit value per byte; 0x80 marks bytes outside the URL-safe alphabet.
    private static let decodeTable: [UInt8] = {
        var t = [UInt8](repeating: 0x80, count: 256)
        for (i, c) in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8.enumerated() {
            t[Int(c)] = UInt8(i)
        }
        return t
    }()
}
