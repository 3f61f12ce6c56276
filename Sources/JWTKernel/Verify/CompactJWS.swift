#if canImport(Glibc)
import Glibc
#endif

/// The three segments of a compact JWS (RFC 7515 §7.1), located in place.
struct CompactJWS {
    /// `header.payload`: the bytes the signature covers.
    let signingInput: UnsafeRawBufferPointer
    let header: UnsafeRawBufferPointer
    let payload: UnsafeRawBufferPointer
    let signature: UnsafeRawBufferPointer

    /// Exactly three base64url segments separated by two dots; the JSON
    /// serialization and five-segment JWE are not JWS compact tokens.
    init(_ token: UnsafeRawBufferPointer) throws(JWTError) {
        guard let base = token.baseAddress, !token.isEmpty else { throw JWTError(.malformed, "token is empty") }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard let dot1 = Self.dot(bytes, from: 0, to: token.count),
            let dot2 = Self.dot(bytes, from: dot1 + 1, to: token.count),
            Self.dot(bytes, from: dot2 + 1, to: token.count) == nil
        else { throw JWTError(.malformed, "token does not have exactly three segments") }
        guard dot1 > 0 else { throw JWTError(.malformed, "header segment is empty") }
        signingInput = UnsafeRawBufferPointer(start: base, count: dot2)
        header = UnsafeRawBufferPointer(start: base, count: dot1)
        payload = UnsafeRawBufferPointer(start: base + dot1 + 1, count: dot2 - dot1 - 1)
        signature = UnsafeRawBufferPointer(start: base + dot2 + 1, count: token.count - dot2 - 1)
    }

    @inline(__always)
    private static func dot(_ bytes: UnsafePointer<UInt8>, from: Int, to: Int) -> Int? {
        guard from < to, let p = memchr(bytes + from, Int32(UInt8(ascii: ".")), to - from) else { return nil }
        return bytes.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }
}
