import CJWTK

@c @implementation
public func jwtk_stats_get(_ v: OpaquePointer?, _ out: UnsafeMutablePointer<jwtk_stats>?) -> Int32 {
    guard let verifier = Handle.object(v, .verifier, as: VerifierState.self) else { return handleStatus(v) }
    guard let out else { return JWTK_E_NULL }
    guard out.pointee.struct_size >= UInt32(MemoryLayout<jwtk_stats>.size) else { return JWTK_E_STRUCT_SIZE }
    var s = jwtk_stats()
    s.struct_size = out.pointee.struct_size
    s.allowed = verifier.counters.allowed
    s.denied = verifier.counters.denied
    // Safety: denied_by_status is a fixed C array of JWTK_STATS_STATUS_SLOTS uint64_t (imported as a tuple).
    withUnsafeMutableBytes(of: &s.denied_by_status) { raw in
        let slots = raw.bindMemory(to: UInt64.self)
        for status in 1..<slots.count { slots[status] = verifier.counters.denied(status) }
    }
    let keys = verifier.registry.counters()
    s.jwks_loads = keys.loads
    s.jwks_load_failures = keys.failures
    s.keys_loaded = keys.keysLoaded
    s.keys_rejected = keys.rejected
    s.last_success_unix = keys.lastSuccess
    s.last_attempt_unix = keys.lastAttempt
    out.pointee = s
    return JWTK_OK
}
