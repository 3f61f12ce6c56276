/// Where a PEM key starts in published text. RFC 7468 section 2 lets text
/// come before the first `-----BEGIN` line, and keys are published with a
/// UTF-8 byte order mark, a leading newline or an explanation before it
/// (Google and Firebase `{kid: PEM}` values, Envoy's jwt_verify_lib vectors).
/// OpenSSL skips whole lines before the boundary but not a BOM or spaces on the
/// boundary's own line, so the kernel hands it the text from the boundary on.
/// Only what precedes the boundary is skipped; the block itself is parsed as strictly as before.
@_spi(Internals)
public enum PEMText {
    static let boundary = Array("-----BEGIN ".utf8)

    /// The text from its first `-----BEGIN ` on; nil when it has none.
    static func block(in text: String) -> Substring? {
        let bytes = Array(text.utf8)
        guard let start = boundary(in: bytes, from: 0) else { return nil }
        return Substring(decoding: bytes[start...], as: UTF8.self)
    }

    /// Whether `bytes` hold a PEM boundary (a PEM key file, a `{kid: PEM}` map value).
    public static func isPEM(_ bytes: some Collection<UInt8>) -> Bool { boundary(in: Array(bytes), from: 0) != nil }

    /// How many `-----BEGIN ` boundaries the text holds: a key must be exactly one block, since
    /// OpenSSL reads only the first one and the others would be dropped without a word.
    static func blockCount(_ text: String) -> Int {
        let bytes = Array(text.utf8)
        var count = 0
        var from = 0
        while let start = boundary(in: bytes, from: from) {
            count += 1
            from = start + boundary.count
        }
        return count
    }

    private static func boundary(in bytes: [UInt8], from: Int) -> Int? {
        guard bytes.count - from >= boundary.count else { return nil }
        for i in from...(bytes.count - boundary.count)
        where bytes[i] == 0x2D && bytes[i..<(i + boundary.count)].elementsEqual(boundary) {
            return i
        }
        return nil
    }
}
