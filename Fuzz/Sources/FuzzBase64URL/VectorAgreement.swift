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
