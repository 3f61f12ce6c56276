import CJWTK
import CJWTKSupport
@_spi(Internals) import JWTKernel

/// A cache entry's filled `jwtk_claims`, kept with the entry (`CacheAttachment`) so that a later hit of the same
/// token, on any ctx, copies it instead of filling the fields one by one (~200 of a C cache hit's ~1,180
/// instructions). Its strings point into the entry's bytes or static storage, so they are the same for every
/// holder of the entry; `payload` alone points into the caller's token, so the template keeps its offset. An entry
/// with an escaped string is declined: each ctx decodes that string into its own arena.
struct ClaimsTemplate {
    var claims: jwtk_claims
    /// Where `claims.payload` starts in the token (the token's bytes are the entry's, so the same offset in each).
    var payloadStart: Int

    /// After `out` was filled from a fresh hit whose entry has no attachment yet: offers `out` as the entry's.
    static func offer(
        _ out: UnsafePointer<jwtk_claims>, _ t: VerifiedToken, _ held: CacheHold, token: UnsafeRawBufferPointer
    ) {
        let r = t.claims
        let decodedPerContext =
            t.kidSpan?.escaped == true || t.typSpan?.escaped == true || r.iss?.escaped == true
            || r.sub?.escaped == true || r.jti?.escaped == true || (r.aud?.kind != .array && r.aud?.escaped == true)
        guard !decodedPerContext, let payload = out.pointee.payload.ptr, let base = token.baseAddress else {
            _ = held.pointee.attach(CacheAttachment.declined)
            return
        }
        let template = UnsafeMutablePointer<ClaimsTemplate>.allocate(capacity: 1)
        template.initialize(
            to: ClaimsTemplate(claims: out.pointee, payloadStart: base.distance(to: UnsafeRawPointer(payload))))
        // Another thread's hit attached first: the entry keeps that one (the same fields), this one goes.
        if !held.pointee.attach(UInt(bitPattern: template)) { template.deallocate() }
    }

    /// Fills every field of `out` after struct_size from the template at `word` (an entry's attachment).
    @inline(__always)
    static func copy(_ word: UInt, into out: UnsafeMutablePointer<jwtk_claims>, token: UnsafeRawBufferPointer) {
        // Safety: `word` is the address of a ClaimsTemplate that `offer` attached to the held entry, which the ctx
        // keeps alive as long as `out`'s pointers are promised; the template never changes once attached.
        let t = UnsafePointer<ClaimsTemplate>(bitPattern: word).unsafelyUnwrapped
        jkernel_claims_copy(out, t.pointer(to: \.claims).unsafelyUnwrapped)
        // Safety: the token's bytes are the entry's (the hit compared them), so the offset is inside it.
        out.pointee.payload = jwtk_str(
            ptr: (token.baseAddress.unsafelyUnwrapped + t.pointee.payloadStart).assumingMemoryBound(to: CChar.self),
            len: t.pointee.claims.payload.len)
    }
}
