import CJWTK
@_spi(Internals) import JWTKernel

@c @implementation
public func jwtk_verify(
    _ v: OpaquePointer?, _ ctx: OpaquePointer?, _ token: UnsafePointer<CChar>?, _ length: Int,
    _ now: Int64, _ out: UnsafeMutablePointer<jwtk_claims>?
) -> Int32 {
    // Both handles unretained (Handle.unretained): the caller holds them for the call.
    guard let v = Handle.unretained(v, .verifier, as: VerifierState.self) else { return handleStatus(v) }
    guard let c = Handle.unretained(ctx, .context, as: ContextState.self) else { return handleStatus(ctx) }
    return v._withUnsafeGuaranteedRef { verifier in
        c._withUnsafeGuaranteedRef { context in
            context.verified = nil
            context.nestedCount = 0
            // Only this call's hit may say the documents are in the held entry (a plain store: the entry a
            // previous hit left is dropped by the next hit, which replaces it, or the next copy).
            context.held.pointee.fresh = false
            if let out, out.pointee.struct_size < UInt32(MemoryLayout<jwtk_claims>.size) {
                context.setMessage("out->struct_size is smaller than sizeof(jwtk_claims)")
                return JWTK_E_STRUCT_SIZE
            }
            let status = verifyToken(verifier, context, token, length, now, out)
            // A success wrote every field; anything else reports nothing.
            if status != JWTK_OK, let out { ClaimsExport.clear(out) }
            return status
        }
    }
}

/// jwtk_verify once the handles and `out` are known good.
@inline(__always)
private func verifyToken(
    _ verifier: VerifierState, _ context: ContextState, _ token: UnsafePointer<CChar>?, _ length: Int,
    _ now: Int64, _ out: UnsafeMutablePointer<jwtk_claims>?
) -> Int32 {
    guard let token else {
        context.setMessage("token is NULL")
        return JWTK_E_NULL
    }
    guard now >= 0 else {
        context.setMessage("now is negative")
        return JWTK_E_RANGE
    }
    // A size_t above Int.max arrives negative: longer than any limit, like any token over max_token_size.
    guard length >= 0, length <= verifier.settings.maxTokenSize else {
        verifier.count(JWTK_TOO_LARGE, stripe: context.counterStripe)
        context.setMessage("token exceeds the size limit")
        return JWTK_TOO_LARGE
    }
    // Safety: `length` readable bytes at `token` for this call (jwtk.h); 0 <= length <= max_token_size.
    let bytes = UnsafeRawBufferPointer(start: token, count: length)
    // Room, so capture never has to move the arena, for the verified documents' three regions
    // (3 * (header + claims), at most 2.25 * length: base64url).
    context.reserve(3 * length + 16)
    // The context holds its routes from call to call, so they are used here without a reference of their own.
    return verifier.routes(in: context)._withUnsafeGuaranteedRef { routes in
        verifyRouted(verifier, context, routes, bytes, token, now, out)
    }
}

/// jwtk_verify once the routes are known.
@inline(__always)
private func verifyRouted(
    _ verifier: VerifierState, _ context: ContextState, _ routes: Routes, _ bytes: UnsafeRawBufferPointer,
    _ token: UnsafePointer<CChar>, _ now: Int64, _ out: UnsafeMutablePointer<jwtk_claims>?
) -> Int32 {
    var outcome = CacheOutcome.notUsed
    let status: Int32
    do throws(JWTError) {
        // The caller's `now` goes to the core as an argument (0: the verifier's clock, read when needed).
        let at = now == 0 ? nil : now
        switch verifier.settings.tokenType {
        case .signed:
            try routes.verifier.verifyLending(bytes, at: at, cacheOutcome: &outcome, holding: context.held) {
                verified in
                export(verified, context, out, token: bytes)
            }
        case .nested:
            // The inner JWS through the same routed pipeline; its payload segment is not in the caller's token.
            // The inner JWS itself is kept for jwtk_nested_jws (NGINX Plus's $jwt_payload of a nested token).
            try routes.verifier.verifyNestedLending(
                bytes, decryptor: try decryptor(verifier), at: at, cacheOutcome: &outcome
            ) { verified, inner in
                // Room first (reserve may move the arena, dropping what it held): the three regions and the JWS.
                context.reserve(3 * (verified.header.count + verified.claimsJSON.count) + inner.count)
                export(verified, context, out, token: nil)
                if let layout = context.verified, let source = inner.baseAddress {
                    (context.arena + layout.total).copyMemory(from: source, byteCount: inner.count)
                    context.nestedCount = inner.count
                }
            }
        case .encrypted:
            try routes.verifier.verifyEncryptedLending(bytes, decryptor: try decryptor(verifier), at: at) { t in
                ClaimsExport.capture(t, into: context)
                if let out { ClaimsExport.fill(out, t, context) }
            }
        }
        context.clearMessage()
        status = JWTK_OK
    } catch {
        // A verification without keys is neither a cache hit nor a miss (jwtk_stats: every verdict is a hit,
        // a miss or keys_unavailable).
        if error.code == .keysUnavailable { outcome = .notUsed }
        context.setMessage(error)
        status = error.code.number
    }
    verifier.counters.count(status, outcome, stripe: context.counterStripe)
    return status
}

/// The keystore's decryption keys for a nested or encrypted-only verifier: keys_unavailable (HTTP 503) before
/// any were loaded, as for a signed token whose issuer has no keys yet.
func decryptor(_ verifier: VerifierState) throws(JWTError) -> JWEDecryptor {
    guard let keys = verifier.keystore.decryptionKeys else {
        throw JWTError(.keysUnavailable, "no decryption keys are loaded (jwtk_keystore_load_decryption_keys)")
    }
    return JWEDecryptor(keys: keys, maxTokenSize: verifier.settings.maxTokenSize)
}

/// A verified token's claims into the ctx (for jwtk_claim) and `out`; `token`: the caller's token when it is
/// the JWS verified (nil for a nested token's inner JWS, whose payload segment the caller does not hold).
@inline(__always)
private func export(
    _ verified: VerifiedToken, _ context: ContextState, _ out: UnsafeMutablePointer<jwtk_claims>?,
    token: UnsafeRawBufferPointer?
) {
    ClaimsExport.capture(verified, into: context)
    if let out { ClaimsExport.fill(out, verified, context, token: token) }
}

@c @implementation
public func jwtk_verify_batch(
    _ v: OpaquePointer?, _ tokens: UnsafePointer<UnsafePointer<CChar>?>?,
    _ lengths: UnsafePointer<Int>?, _ n: Int, _ now: Int64,
    _ statuses: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let verifier = Handle.object(v, .verifier, as: VerifierState.self) else { return handleStatus(v) }
    guard n != 0 else { return JWTK_OK }
    guard let tokens, let lengths, let statuses else { return JWTK_E_NULL }
    guard n > 0, n <= InputLimits.batch else { return JWTK_E_RANGE }
    guard now >= 0 else { return JWTK_E_RANGE }
    // Safety: the caller promises n entries in each array (jwtk.h); BatchRun checks every entry before use.
    BatchRun(verifier: verifier, now: now).run(tokens, lengths, n, statuses)
    return JWTK_OK
}
