import CJWTK

@c @implementation
public func jwtk_verifier_new(
    _ config: UnsafePointer<CChar>?, _ configLength: Int, _ ks: OpaquePointer?,
    _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    newVerifier(config, configLength, ks, nil, out)
}

@c @implementation
public func jwtk_verifier_new_ex(
    _ config: UnsafePointer<CChar>?, _ configLength: Int, _ ks: OpaquePointer?,
    _ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    newVerifier(config, configLength, ks, ctx, out)
}

@c @implementation
public func jwtk_verifier_free(_ v: OpaquePointer?) {
    Handle.release(v, .verifier)
}

private func newVerifier(
    _ config: UnsafePointer<CChar>?, _ configLength: Int, _ ks: OpaquePointer?,
    _ ctx: OpaquePointer?, _ out: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    let context: ContextState?
    switch optionalContext(ctx) {
    case .success(let c): context = c
    case .failure(let e): return e.status
    }
    context?.clearMessage()
    guard let out else { return JWTK_E_NULL }
    out.pointee = nil
    guard let keystore = Handle.object(ks, .keystore, as: KeystoreState.self) else { return handleStatus(ks) }
    let bytes: UnsafeRawBufferPointer
    switch InputBytes.required(config, configLength, limit: InputLimits.config) {
    case .success(let b): bytes = b
    case .failure(let e):
        context?.setMessage("config: \(StatusTable.text(e.status))")
        return e.status
    }
    do {
        let settings = try VerifierConfig.parse(bytes)
        if let remote = settings.remote { try keystore.addRemote(remote) }
        if let local = settings.localSecret { try keystore.addLocal(local, publish: settings.remote == nil) }
        out.pointee = Handle.make(VerifierState(settings: settings, keystore: keystore), .verifier)
        return JWTK_OK
    } catch {
        context?.setMessage(error.message ?? "\(StatusTable.text(error.status))")
        return error.status
    }
}
