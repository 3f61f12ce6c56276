/// JOSE carries ECDSA signatures as fixed-length `r || s` (RFC 7518 §3.4);
/// OpenSSL verifies DER `ECDSA-Sig-Value`. This converts on the stack.
enum ECDSASignature {
    /// Largest DER form: P-521 has 66-byte halves, +1 sign byte, +2 header
    /// bytes each (long-form length), +3 for the sequence header.
    static let maxDERLength = 2 * (66 + 1 + 3) + 3

    /// Calls `body` with the DER encoding of the raw signature (even length, at most 132 bytes).
    static func withDER<R>(rawSignature raw: UnsafeRawBufferPointer, _ body: (UnsafeRawBufferPointer) -> R) -> R {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxDERLength) { out in
            let half = raw.count / 2
            // Leave room for the SEQUENCE header; its length is known only at the end.
            var contentStart = 3
            var n = appendInteger(raw[0..<half], into: out, at: contentStart)
            n = appendInteger(raw[half..<raw.count], into: out, at: n)
            let contentLength = n - contentStart
            if contentLength < 0x80 {
                contentStart -= 2
                out[contentStart] = 0x30
                out[contentStart + 1] = UInt8(contentLength)
            } else {
                contentStart -= 3
                out[contentStart] = 0x30
                out[contentStart + 1] = 0x81
                out[contentStart + 2] = UInt8(contentLength)
            }
            return body(UnsafeRawBufferPointer(rebasing: UnsafeMutableRawBufferPointer(out)[contentStart..<n]))
        }
    }

    /// Minimal DER INTEGER for an unsigned big-endian value (zero encodes as `02 01 00`,
    /// which OpenSSL then rejects as out of range, as it must).
    private static func appendInteger(
        _ value: Slice<UnsafeRawBufferPointer>, into out: UnsafeMutableBufferPointer<UInt8>, at start: Int
    ) -> Int {
        var first = value.startIndex
        while first < value.endIndex - 1, value[first] == 0 { first += 1 }
        let needsPad = value[first] & 0x80 != 0
        let length = value.endIndex - first + (needsPad ? 1 : 0)
        var n = start
        out[n] = 0x02
        n += 1
        if length >= 0x80 {
            out[n] = 0x81
            n += 1
        }
        out[n] = UInt8(length)
        n += 1
        if needsPad {
            out[n] = 0
            n += 1
        }
        for i in first..<value.endIndex {
            out[n] = value[i]
            n += 1
        }
        return n
    }
}
