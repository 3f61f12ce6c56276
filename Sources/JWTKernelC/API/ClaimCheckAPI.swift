import CJWTK
@_spi(Internals) import JWTKernel

/// jwtk_check_claims: a verifier's claim requirements against the ctx's last verified claims, with the
/// core's own compiled requirements (the same check jwtk_verify runs), so a host's authorization step
/// (Apache's `Require jwtk-claim`) never compares claims itself.
@c @implementation
public func jwtk_check_claims(_ v: OpaquePointer?, _ ctx: OpaquePointer?) -> Int32 {
    guard let verifier = Handle.object(v, .verifier, as: VerifierState.self) else { return handleStatus(v) }
    guard let context = Handle.object(ctx, .context, as: ContextState.self) else { return handleStatus(ctx) }
    guard let layout = context.verified else {
        context.setMessage("no token verified on this ctx")
        return JWTK_E_NO_TOKEN
    }
    if verifier.requirements.isEmpty { return JWTK_OK }
    do throws(JWTError) {
        try verifier.requirements.checkAll(layout.claims.bytes)
        context.clearMessage()
        return JWTK_OK
    } catch {
        context.setMessage(error)
        return error.code.number
    }
}
