// FuzzBase64URL: bytes through Base64URL.decode (pointer and String forms) and encode.
//
// Invariants:
//   1. decode agrees with an independent strict reference decoder (accept/reject and bytes),
//      and writes no more than decodedCount bytes (the destination is an exact-size heap block).
//   2. When decode(x) succeeds: encode(decode(x)) == x (canonical: one encoding per byte string),
//      decode(encode(decode(x))) == decode(x), and Foundation's standard-alphabet decoder agrees.
//   3. For the input as raw bytes b: decode(encode(b)) == b and the encoded length is exact.
//   4. The vector path and the scalar loop agree on accept/reject and every output byte
//      (VectorAgreement.swift); inputs longer than a block reach the vector loop. So does the
//      three-segment decode the verifier uses, on the input cut in three.
import Foundation
import FuzzSupport
@_spi(Internals) import JWTKernel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzBase64URL(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let src = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { src.deallocate() }
    if size > 0 { src.copyMemory(from: UnsafeRawBufferPointer(start: data, count: size)) }
    checkBase64(UnsafeRawBufferPointer(src))
    checkVectorAgainstScalar(UnsafeRawBufferPointer(src))
    checkThreeSegments(UnsafeRawBufferPointer(src))
    return 0
}

func checkBase64(_ src: UnsafeRawBufferPointer) {
    let ref = referenceDecode(src)

    // 1.
    var decoded: [UInt8]?
    if let n = Base64URL.decodedCount(src.count) {
        let dst = UnsafeMutableRawPointer.allocate(byteCount: max(n, 1), alignment: 1)
        defer { dst.deallocate() }
        let written = Base64URL.decode(src, into: dst)
        require(
            (written != nil) == (ref != nil),
            "decode \(written == nil ? "refuses" : "accepts"), reference \(ref == nil ? "refuses" : "accepts")")
        if let written {
            require(written == n, "decode wrote \(written) bytes, decodedCount says \(n)")
            decoded = Array(UnsafeRawBufferPointer(start: dst, count: written))
            require(decoded == ref, "decode and reference differ")
        }
    } else {
        require(ref == nil, "reference accepts a length decodedCount calls impossible")
    }
    if let text = String(validating: src, as: UTF8.self) {
        require(Base64URL.decode(text) == ref, "String decode differs from the pointer decode")
        require(Base64URL.decode(Substring(text)) == ref, "Substring decode differs")
    }

    // 2.
    if let d = decoded {
        let again = Base64URL.encode(d)
        require(Array(again.utf8) == Array(src), "accepted a non-canonical encoding (re-encodes as \(again))")
        require(Base64URL.decode(again) == d, "decode(encode(decode(x))) != decode(x)")
        var std = String(decoding: src, as: UTF8.self).replacingOccurrences(of: "-", with: "+").replacingOccurrences(
            of: "_", with: "/")
        std += String(repeating: "=", count: (4 - std.utf8.count % 4) % 4)
        require(Data(base64Encoded: std).map(Array.init) == d, "Foundation decodes \(std) differently")
    }

    // 3.
    let encoded = Base64URL.encode(src)
    require(
        encoded.utf8.count == (src.count * 4 + 2) / 3, "encoded length \(encoded.utf8.count) for \(src.count) bytes")
    require(Base64URL.decodedCount(encoded.utf8.count) == src.count, "decodedCount does not invert encode's length")
    require(Base64URL.decode(encoded) == Array(src), "decode(encode(b)) != b")
}

/// Strict unpadded base64url, written plainly: alphabet, length, zero trailing bits.
func referenceDecode(_ src: UnsafeRawBufferPointer) -> [UInt8]? {
    if src.count % 4 == 1 { return nil }
    var out: [UInt8] = []
    var acc: UInt32 = 0, bits = 0
    for c in src {
        let v: UInt32
        switch c {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): v = UInt32(c - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): v = UInt32(c - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): v = UInt32(c - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): v = 62
        case UInt8(ascii: "_"): v = 63
        default: return nil
        }
        acc = acc << 6 | v
        bits += 6
        if bits >= 8 {
            bits -= 8
            out.append(UInt8(truncatingIfNeeded: acc >> UInt32(bits)))
            acc &= (1 << UInt32(bits)) - 1
        }
    }
    return acc == 0 ? out : nil  // leftover bits must be zero
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzBase64URL", fuzzBase64URL) }
}
#endif
