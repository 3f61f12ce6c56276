import CJWTK

@c @implementation
public func jwtk_ctx_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return JWTK_E_NULL }
    out.pointee = Handle.make(ContextState(), .context)
    return JWTK_OK
}

@c @implementation
public func jwtk_ctx_free(_ ctx: OpaquePointer?) {
    Handle.release(ctx, .context)
}

@c @implementation
public func jwtk_ctx_errmsg(_ ctx: OpaquePointer?) -> UnsafePointer<CChar>? {
    guard let state = Handle.object(ctx, .context, as: ContextState.self) else {
        return cString(ctx == nil ? "ctx is NULL" : "ctx is not a live jwtk_ctx")
    }
    // Safety: the message buffer lives as long as the ctx and changes only in calls on it (jwtk.h's lifetime).
    return UnsafePointer(state.message)
}

/// The context behind an optional `jwtk_ctx *` argument: nil when absent; a status when not a live ctx.
func optionalContext(_ ctx: OpaquePointer?) -> Result<ContextState?, StatusError> {
    guard let ctx else { return .success(nil) }
    guard let state = Handle.object(ctx, .context, as: ContextState.self) else {
        return .failure(StatusError(JWTK_E_HANDLE))
    }
    return .success(state)
}

/// The status for a required handle argument that did not resolve.
func handleStatus(_ handle: OpaquePointer?) -> Int32 { handle == nil ? JWTK_E_NULL : JWTK_E_HANDLE }
