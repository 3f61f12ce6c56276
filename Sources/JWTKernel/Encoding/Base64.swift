/// Strict standard base64 (RFC 4648 §4, with padding), for the one place JOSE
/// uses it: `x5c` certificates (RFC 7517 §4.7). Same rules as `Base64URL`
/// otherwise: no whitespace, no other alphabet, canonical trailing bits.
enum Base64 {
    static func decode(_ text: some StringProtocol) -> [UInt8]? {
        var bytes = Array(text.utf8)
        guard bytes.count % 4 == 0 else { return nil }
        var padding = 0
        while padding < 2, bytes.last == UInt8(ascii: "=") {
            bytes.removeLast()
            padding += 1
        }
        for i in bytes.indices {
            switch bytes[i] {
            case UInt8(ascii: "+"): bytes[i] = UInt8(ascii: "-")
            case UInt8(ascii: "/"): bytes[i] = UInt8(ascii: "_")
            // The URL-safe characters and stray padding are not standard base64.
            case UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "="): return nil
            default: break
            }
        }
        return Base64URL.decode(bytes)
    }
}
