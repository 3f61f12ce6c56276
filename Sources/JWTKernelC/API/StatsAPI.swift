import CJWTK
import JWTKernelRemote

@c @implementation
public func jwtk_stats_get(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<jwtk_stats>?) -> Int32 {
    guard let verifier = Handle.object(v, .verifier, as: VerifierState.self) else { return handleStatus(v) }
    guard let out else { return JWTK_E_NULL }
    let size = Int(out.pointee.struct_size)
    guard size >= StatsLayout.firstSize else { return JWTK_E_STRUCT_SIZE }
    var s = jwtk_stats()
    s.struct_size = out.pointee.struct_size
    s.allowed = verifier.counters.allowed
    s.denied = verifier.counters.denied
    // Safety: denied_by_status is a fixed C array of JWTK_STATS_STATUS_SLOTS uint64_t (imported as a tuple).
    withUnsafeMutableBytes(of: &s.denied_by_status) { raw in
        let slots = raw.bindMemory(to: UInt64.self)
        for status in 1..<slots.count { slots[status] = verifier.counters.denied(status) }
    }
    s.cache_hits = verifier.counters.cacheHits
    s.cache_misses = verifier.counters.cacheMisses
    let keys = verifier.keystore.counters()
    s.jwks_loads = keys.push.loads
    s.jwks_load_failures = keys.push.failures
    s.keys_loaded = keys.keysLoaded
    s.keys_rejected = keys.push.rejected
    s.last_success_unix = keys.push.lastSuccess
    s.last_attempt_unix = keys.push.lastAttempt
    for r in keys.remote {
        s.jwks_fetches += UInt64(r.fetches)
        s.jwks_fetch_failures += UInt64(r.totalFailures)
        s.jwks_not_modified += UInt64(r.notModified)
        s.unknown_kid_refreshes += UInt64(r.unknownKidRefreshes)
        s.unknown_kid_suppressed += UInt64(r.unknownKidSuppressed)
        s.stale_served += UInt64(r.staleServed)
        s.keys_rejected += UInt64(r.keysRejected)
        s.last_success_unix = max(s.last_success_unix, r.lastSuccessUnix ?? 0)
        s.last_attempt_unix = max(s.last_attempt_unix, r.lastAttemptUnix ?? 0)
        s.remote_sources += 1
        if !r.hasKeys { s.remote_sources_without_keys += 1 }
        if let d = r.discovery {
            s.discovery_fetches += UInt64(d.fetches)
            s.discovery_fetch_failures += UInt64(d.totalFailures)
        }
    }
    // Safety: writes min(struct_size, sizeof) bytes, all inside the caller's struct of struct_size bytes.
    withUnsafeBytes(of: &s) { bytes in
        UnsafeMutableRawPointer(out).copyMemory(
            from: bytes.baseAddress!, byteCount: min(size, MemoryLayout<jwtk_stats>.size))
    }
    return JWTK_OK
}

enum StatsLayout {
    /// The 0.1.0 struct: every field up to last_attempt_unix (jwtk_layout.c checks the offset).
    static let firstSize = MemoryLayout<jwtk_stats>.offset(of: \jwtk_stats.jwks_not_modified)!
}
