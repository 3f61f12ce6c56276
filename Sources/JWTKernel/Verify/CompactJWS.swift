internal import CJWTKernelSIMD

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
    ///
    /// The first dot is found from the start and the last from the end, so the
    /// payload (most of the token) is not scanned here: a dot inside it makes it
    /// invalid base64url, and every caller decodes the payload before acting on
    /// anything but the size, so a token of four or more segments is still
    /// `malformed` before any other check, only with the decoder's detail.
    init(_ token: UnsafeRawBufferPointer) throws(JWTError) {
        guard let base = token.baseAddress, !token.isEmpty else { throw JWTError(.malformed, "token is empty") }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard let dot1 = Self.firstDot(bytes, count: token.count),
            let dot2 = Self.lastDot(bytes, after: dot1, count: token.count)
        else { throw JWTError(.malformed, "token does not have exactly three segments") }
        guard dot1 > 0 else { throw JWTError(.malformed, "header segment is empty") }
        signingInput = UnsafeRawBufferPointer(start: base, count: dot2)
        header = UnsafeRawBufferPointer(start: base, count: dot1)
        payload = UnsafeRawBufferPointer(start: base + dot1 + 1, count: dot2 - dot1 - 1)
        signature = UnsafeRawBufferPointer(start: base + dot2 + 1, count: token.count - dot2 - 1)
    }

    @inline(__always)
    private static func firstDot(_ bytes: UnsafePointer<UInt8>, count: Int) -> Int? {
        guard let p = memchr(bytes, Int32(UInt8(ascii: ".")), count) else { return nil }
        return bytes.distance(to: p.assumingMemoryBound(to: UInt8.self))
    }

    /// The last dot after `after`, or nil if `after` is the last (`jkernel_last_byte`, 16 bytes
    /// at a time from the end: the signature, tens to hundreds of bytes).
    @inline(__always)
    private static func lastDot(_ bytes: UnsafePointer<UInt8>, after: Int, count: Int) -> Int? {
        let rest = count - after - 1
        // Safety: reads only bytes[after + 1 ..< count], inside the token.
        let k = jkernel_last_byte(bytes + after + 1, rest, UInt8(ascii: "."))
        return k == rest ? nil : after + 1 + k
    }
}
