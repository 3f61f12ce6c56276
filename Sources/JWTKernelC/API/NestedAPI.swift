import CJWTK

/// jwtk_nested_jws: the inner JWS of the nested token last verified on a context, as jwtk_verify kept it
/// behind the verified documents (VerifyAPI.swift), for NGINX Plus's `$jwt_payload` of a nested token.
@c @implementation
public func jwtk_nested_jws(_ ctx: OpaquePointer?, _ value: UnsafeMutablePointer<jwtk_str>?) -> Int32 {
    guard let context = Handle.object(ctx, .context, as: ContextState.self) else { return handleStatus(ctx) }
    guard let value else { return JWTK_E_NULL }
    value.pointee = jwtk_str()
    guard let layout = context.verified else { return JWTK_E_NO_TOKEN }
    guard context.nestedCount > 0 else { return JWTK_OK }
    value.pointee = jwtk_str(
        ptr: UnsafeRawPointer(context.arena + layout.total).assumingMemoryBound(to: CChar.self),
        len: context.nestedCount)
    return JWTK_OK
}
