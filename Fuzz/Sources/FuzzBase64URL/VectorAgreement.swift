import FuzzSupport
import Glibc
// The vector base64url path (CJWTKernelSIMD) against the scalar loop on the same input.
//
// Why a separate check: the vector loop handles whole 32-character blocks and leaves the tail
// to the scalar code, so a mistake in its character classification or its packing only shows
// where the two paths disagree (accept/reject, or a different byte anywhere in the output).
// Both destinations are exact-size heap blocks, so ASan catches a store past decodedCount.
@_spi(Internals) import JWTKernel

func checkVectorAgainstScalar(_ src: UnsafeRawBufferPointer) {
    guard let n = Base64URL.decodedCount(src.count) else { return }
    let scalar = UnsafeMutableRawBufferPointer.allocate(byteCount: max(n, 1), alignment: 1)
    let vector = UnsafeMutableRawBufferPointer.allocate(byteCount: max(n, 1), alignment: 1)
    defer { scalar.deallocate(); vector.deallocate() }
    let s = Base64URL.decode(src, into: scalar.baseAddress!, vectorized: false)
    let v = Base64URL.decode(src, into: vector.baseAddress!, vectorized: true)
    require(
        s == v,
        "scalar decode returns \(String(describing: s)), vector (level \(Base64URL.vectorLevel)) \(String(describing: v))"
    )
    if let s {
        // Safety: both blocks hold n >= s bytes, and each decode wrote its first s bytes.
        require(
            memcmp(scalar.baseAddress!, vector.baseAddress!, s) == 0, "scalar and vector decode write different bytes")
    }
}

/// The three-segment decode the verifier uses, on the input cut in three at points taken from its
/// own bytes, against three scalar decodes: same verdict, and the same bytes when all are valid.
/// Exact-size heap destinations, so ASan catches a store past any segment's decodedCount.
func checkThreeSegments(_ src: UnsafeRawBufferPointer) {
    guard src.count >= 2 else { return }
    let cut1 = Int(src[0]) % src.count, cut2 = cut1 + Int(src[src.count - 1]) % (src.count - cut1)
    let parts = [0..<cut1, cut1..<cut2, cut2..<src.count].map { UnsafeRawBufferPointer(rebasing: src[$0]) }
    var scalar: [[UInt8]?] = []
    var dsts: [UnsafeMutableRawBufferPointer] = []
    defer { for d in dsts { d.deallocate() } }
    for part in parts {
        let n = Base64URL.decodedCount(part.count) ?? 0
        let ref = UnsafeMutableRawBufferPointer.allocate(byteCount: max(n, 1), alignment: 1)
        defer { ref.deallocate() }
        let written =
            Base64URL.decodedCount(part.count) == nil
            ? nil : Base64URL.decode(part, into: ref.baseAddress!, vectorized: false)
        scalar.append(written.map { Array(UnsafeRawBufferPointer(start: ref.baseAddress, count: $0)) })
        dsts.append(.allocate(byteCount: max(n, 1), alignment: 1))
    }
    let ok = Base64URL.decode(
        parts[0], into: dsts[0].baseAddress!, parts[1], into: dsts[1].baseAddress!, parts[2],
        into: dsts[2].baseAddress!)
    require(
        ok == !scalar.contains(where: { $0 == nil }),
        "three-segment decode returns \(ok), scalar decodes \(scalar.map { $0 != nil })")
    if ok {
        for k in 0..<3 {
            require(
                Array(UnsafeRawBufferPointer(start: dsts[k].baseAddress, count: scalar[k]!.count)) == scalar[k]!,
                "three-segment decode writes different bytes in segment \(k)")
        }
    }
}
