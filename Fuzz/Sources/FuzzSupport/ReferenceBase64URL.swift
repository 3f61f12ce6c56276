// Unpadded base64url written plainly, for building tokens in the harnesses. Why not the
// library's Base64URL.encode: it is under test (a bug there would be copied into every token the
// harness builds and hidden), and it returns a String, whose building costs more under ASan than
// the verification it feeds.
public enum ReferenceBase64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    /// Appends the encoding of `bytes` to `out`.
    public static func encode(_ bytes: UnsafeRawBufferPointer, into out: inout [UInt8]) {
        var acc: UInt32 = 0
        var bits = 0
        for b in bytes {
            acc = acc << 8 | UInt32(b)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int(acc >> UInt32(bits) & 63)])
            }
            acc &= (1 << UInt32(bits)) - 1
        }
        if bits > 0 { out.append(alphabet[Int(acc << UInt32(6 - bits) & 63)]) }
    }
}
