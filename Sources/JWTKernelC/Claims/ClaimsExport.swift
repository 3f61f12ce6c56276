import CJWTK
@_spi(Internals) import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// Keeps a verified token's documents in a context and fills the caller's `jwtk_claims`.
/// Runs inside the core's result callback (the `VerifiedToken` is valid only there).
enum ClaimsExport {
    static func capture(_ t: VerifiedToken, into ctx: ContextState) {
        // A cache hit handed its entry to the context before this callback (`CacheHold`): the documents are the
        // entry's, header then claims, immutable and held until a later call copies documents, so not copied.
        if ctx.held.pointee.fresh, let header = t.header.baseAddress,
            t.claimsJSON.baseAddress == header + t.header.count
        {
            ctx.verified = VerifiedLayout(
                documents: header, headerCount: t.header.count, claimsCount: t.claimsJSON.count)
            return
        }
        capture(header: t.header, claimsJSON: t.claimsJSON, into: ctx)
    }

    /// An encrypted-only token's decrypted header and claims, as `capture` does a verified one's.
    static func capture(_ t: DecryptedToken, into ctx: ContextState) {
        capture(header: t.header, claimsJSON: t.claimsJSON, into: ctx)
    }

    private static func capture(
        header: UnsafeRawBufferPointer, claimsJSON: UnsafeRawBufferPointer, into ctx: ContextState
    ) {
        ctx.reserve(3 * (header.count + claimsJSON.count))
        let layout = VerifiedLayout(
            documents: UnsafeRawPointer(ctx.arena), headerCount: header.count, claimsCount: claimsJSON.count)
        // Safety: the arena holds layout.total bytes (just reserved); the sources are the core's views.
        if let h = header.baseAddress { ctx.arena.copyMemory(from: h, byteCount: layout.headerCount) }
        if let c = claimsJSON.baseAddress {
            (ctx.arena + layout.claimsOffset).copyMemory(from: c, byteCount: layout.claimsCount)
        }
        ctx.verified = layout
        // The documents are the ctx's own now: an entry an earlier hit left is not needed (no release otherwise),
        // and nothing may read this call's as held (`fill`).
        if ctx.held.pointee.entry != nil {
            ctx.held.pointee.entry = nil
            ctx.held.pointee.fresh = false
        }
    }

    /// An encrypted-only token into `out`: `alg` is the JWE's key management algorithm, `kid`, `typ` and
    /// `payload` are empty (the JWE header's own parse has no spans; the payload is not a segment of the
    /// token), the registered claims and `claims_json` as for a signed token.
    static func fill(_ out: UnsafeMutablePointer<jwtk_claims>, _ t: DecryptedToken, _ ctx: ContextState) {
        guard let layout = ctx.verified else { return }
        out.pointee.alg = staticText(keyManagementName(t.keyManagement))
        out.pointee.kid = jwtk_str()
        out.pointee.typ = jwtk_str()
        out.pointee.payload = jwtk_str()
        fillClaims(out, t.claims, ctx, layout)
    }

    static func keyManagementName(_ a: KeyManagementAlgorithm) -> StaticString {
        switch a {
        case .dir: "dir"
        case .a128kw: "A128KW"
        case .a192kw: "A192KW"
        case .a256kw: "A256KW"
        case .a128gcmkw: "A128GCMKW"
        case .a192gcmkw: "A192GCMKW"
        case .a256gcmkw: "A256GCMKW"
        case .rsaOAEP: "RSA-OAEP"
        case .rsaOAEP256: "RSA-OAEP-256"
        case .rsaOAEP384: "RSA-OAEP-384"
        case .rsaOAEP512: "RSA-OAEP-512"
        case .ecdhES: "ECDH-ES"
        case .ecdhESA128KW: "ECDH-ES+A128KW"
        case .ecdhESA192KW: "ECDH-ES+A192KW"
        case .ecdhESA256KW: "ECDH-ES+A256KW"
        }
    }

    /// Every field after struct_size written in place (no temporary jwtk_claims copied over `out`: this runs on
    /// every jwtk_verify, where a cache hit costs some 50 ns in all).
    static func fill(
        _ out: UnsafeMutablePointer<jwtk_claims>, _ t: VerifiedToken, _ ctx: ContextState,
        token: UnsafeRawBufferPointer?
    ) {
        // A cache hit: the entry's own filled jwtk_claims when an earlier hit made one, else made now.
        if ctx.held.pointee.fresh, let token {
            let attachment = ctx.held.pointee.attachment
            if attachment > CacheAttachment.declined { return ClaimsTemplate.copy(attachment, into: out, token: token) }
            fillFields(out, t, ctx, token: token)
            if attachment == 0 { ClaimsTemplate.offer(out, t, ctx.held, token: token) }
            return
        }
        fillFields(out, t, ctx, token: token)
    }

    /// `fill` field by field.
    private static func fillFields(
        _ out: UnsafeMutablePointer<jwtk_claims>, _ t: VerifiedToken, _ ctx: ContextState,
        token: UnsafeRawBufferPointer?
    ) {
        guard let layout = ctx.verified else { return }
        out.pointee.alg = staticText(algorithmName(t.algorithm))
        // The core's own header parse says where kid and typ are; capture copied the header to offset 0.
        out.pointee.kid = ctx.headerString(t.kidSpan, layout)
        out.pointee.typ = ctx.headerString(t.typSpan, layout)
        out.pointee.payload =
            token.map { payloadSegment($0, headerCount: layout.headerCount, claimsCount: layout.claimsCount) }
            ?? jwtk_str()
        fillClaims(out, t.claims, ctx, layout)
    }

    /// The registered claims, `claims_json` and `flags`, from the claims captured at `layout`.
    @inline(__always)
    private static func fillClaims(
        _ out: UnsafeMutablePointer<jwtk_claims>, _ r: RegisteredClaims, _ ctx: ContextState,
        _ layout: VerifiedLayout
    ) {
        var flags: UInt32 = 0
        out.pointee.iss = ctx.claimString(r.iss, layout)
        out.pointee.sub = ctx.claimString(r.sub, layout)
        out.pointee.jti = ctx.claimString(r.jti, layout)
        if let aud = r.aud, aud.kind == .array {
            out.pointee.aud = ctx.claimRaw(aud, layout)
            flags |= JWTK_CLAIMS_AUD_ARRAY
        } else {
            out.pointee.aud = ctx.claimString(r.aud, layout)
        }
        // Rounded down exactly from the token's digits (a Double would round 100.99999999999999999 up);
        // the text as the token wrote it is jwtk_claim's. 0 when absent.
        out.pointee.exp = r.exp != nil ? r.expSeconds.floor : 0
        out.pointee.nbf = r.nbf != nil ? r.nbfSeconds.floor : 0
        out.pointee.iat = r.iat != nil ? r.iatSeconds.floor : 0
        if r.exp != nil { flags |= JWTK_CLAIMS_HAS_EXP }
        if r.nbf != nil { flags |= JWTK_CLAIMS_HAS_NBF }
        if r.iat != nil { flags |= JWTK_CLAIMS_HAS_IAT }
        out.pointee.flags = flags
        out.pointee.claims_json = jwtk_str(
            ptr: (layout.documents + layout.claimsOffset).assumingMemoryBound(to: CChar.self), len: layout.claimsCount)
    }

    /// Zeroes everything after struct_size (a failed verification reports nothing).
    static func clear(_ out: UnsafeMutablePointer<jwtk_claims>) {
        let size = out.pointee.struct_size
        out.pointee = jwtk_claims()
        out.pointee.struct_size = size
    }

    /// The base64url payload segment, in the caller's token, without scanning it: the core accepts only
    /// canonical unpadded base64url, so each segment's length follows from its decoded length. Both dots
    /// are checked where they must be, and anything else falls back to the scan (never a wrong span).
    @inline(__always)
    static func payloadSegment(_ token: UnsafeRawBufferPointer, headerCount: Int, claimsCount: Int) -> jwtk_str {
        let start = encodedCount(headerCount) &+ 1
        let end = start &+ encodedCount(claimsCount)
        guard let base = token.baseAddress, end < token.count, token[start &- 1] == 0x2E, token[end] == 0x2E else {
            return payloadSegment(token)
        }
        return jwtk_str(ptr: (base + start).assumingMemoryBound(to: CChar.self), len: end &- start)
    }

    /// Unpadded base64url length of `n` bytes: 4 characters per 3 bytes, 2 or 3 for a remainder of 1 or 2.
    @inline(__always)
    static func encodedCount(_ n: Int) -> Int {
        let r = n % 3
        return n / 3 &* 4 &+ (r == 0 ? 0 : r &+ 1)
    }

    /// The base64url payload segment, in the caller's token, found by scanning for its dots.
    static func payloadSegment(_ token: UnsafeRawBufferPointer) -> jwtk_str {
        // Safety: memchr searches only inside `token`; the result points into the caller's token, which
        // jwtk.h says stays valid only while the caller keeps that buffer.
        guard let base = token.baseAddress?.assumingMemoryBound(to: UInt8.self),
            let dot1 = memchr(base, 0x2E, token.count)
        else { return jwtk_str() }
        let start = base.distance(to: dot1.assumingMemoryBound(to: UInt8.self)) + 1
        guard let dot2 = memchr(base + start, 0x2E, token.count - start) else { return jwtk_str() }
        let end = base.distance(to: dot2.assumingMemoryBound(to: UInt8.self))
        return jwtk_str(ptr: UnsafeRawPointer(base + start).assumingMemoryBound(to: CChar.self), len: end - start)
    }

    static func staticText(_ s: StaticString) -> jwtk_str { jwtk_str(ptr: cString(s), len: s.utf8CodeUnitCount) }

    @inline(__always)
    static func algorithmName(_ a: JWTAlgorithm) -> StaticString {
        switch a {
        case .hs256: "HS256"
        case .hs384: "HS384"
        case .hs512: "HS512"
        case .rs256: "RS256"
        case .rs384: "RS384"
        case .rs512: "RS512"
        case .ps256: "PS256"
        case .ps384: "PS384"
        case .ps512: "PS512"
        case .es256: "ES256"
        case .es384: "ES384"
        case .es512: "ES512"
        case .es256k: "ES256K"
        case .edDSA: "EdDSA"
        case .ed25519: "Ed25519"
        case .ed448: "Ed448"
        }
    }
}

/// The verified documents' strings, decoded into the shadow when they have escapes.
extension ContextState {
    // Safety: callers pass a `VerifiedLayout` of this context (its documents held or in the arena, its shadows in
    // the arena, which capture reserved); the strings below are valid until the next call on this ctx (jwtk.h).
    @inline(__always)
    func headerString(_ span: JSONSpan?, _ layout: VerifiedLayout) -> jwtk_str { string(span, layout.header) }

    @inline(__always)
    func claimString(_ span: JSONSpan?, _ layout: VerifiedLayout) -> jwtk_str { string(span, layout.claims) }

    /// A value's JSON text as it appears in the claims.
    func claimRaw(_ span: JSONSpan, _ layout: VerifiedLayout) -> jwtk_str { raw(span, layout.claims) }

    /// A value's JSON text as it appears in its document.
    func raw(_ span: JSONSpan, _ region: VerifiedLayout.Document) -> jwtk_str {
        // Safety: a span of this document: 0 <= start <= end <= count.
        jwtk_str(ptr: (region.start + span.start).assumingMemoryBound(to: CChar.self), len: span.end &- span.start)
    }

    /// The decoded string: in place when it has no escapes, else decoded into the shadow at the same offset.
    @inline(__always)
    func string(_ span: JSONSpan?, _ region: VerifiedLayout.Document) -> jwtk_str {
        guard let span else { return jwtk_str() }
        if !span.escaped { return raw(span, region) }
        return decodedString(span, region)
    }

    /// `string` of a string with escapes (out of line: rare, and the common case stays small).
    @inline(never)
    func decodedString(_ span: JSONSpan, _ region: VerifiedLayout.Document) -> jwtk_str {
        let doc = region.start.assumingMemoryBound(to: UInt8.self)
        // Safety: the shadow region has the document's size, and the decoded string fits in its span.
        let dst = (arena + region.shadowOffset + span.start).assumingMemoryBound(to: UInt8.self)
        let n = JSONString.decode(span, in: doc, into: dst, capacity: span.count) ?? 0
        return jwtk_str(ptr: UnsafeRawPointer(dst).assumingMemoryBound(to: CChar.self), len: n)
    }
}
