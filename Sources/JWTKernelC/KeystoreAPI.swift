import CJWTK

@c @implementation
public func jwtk_keystore_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return JWTK_E_NULL }
    out.pointee = Handle.make(KeyRegistry(), .keystore)
    return JWTK_OK
}

@c @implementation
public func jwtk_keystore_free(_ ks: OpaquePointer?) {
    Handle.release(ks, .keystore)
}

@c @implementation
public func jwtk_keystore_load_jwks(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ jwks: UnsafePointer<CChar>?, _ jwksLength: Int
) -> Int32 {
    loadKeys(ks, issuer, issuerLength, jwks, jwksLength, nil)
}

@c @implementation
public func jwtk_keystore_load_jwks_ex(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ jwks: UnsafePointer<CChar>?, _ jwksLength: Int, _ ctx: OpaquePointer?
) -> Int32 {
    loadKeys(ks, issuer, issuerLength, jwks, jwksLength, ctx)
}

@c @implementation
public func jwtk_keystore_start(_ ks: OpaquePointer?) -> Int32 {
    guard Handle.object(ks, .keystore, as: KeyRegistry.self) != nil else { return handleStatus(ks) }
    // Pull mode needs the remote key module (issue 8); this build has none and says so.
    return JWTK_E_UNAVAILABLE
}

/// Checks every argument, then parses and publishes (see KeyRegistry.load).
private func loadKeys(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ jwks: UnsafePointer<CChar>?, _ jwksLength: Int, _ ctx: OpaquePointer?
) -> Int32 {
    let context: ContextState?
    switch optionalContext(ctx) {
    case .success(let c): context = c
    case .failure(let e): return e.status
    }
    context?.clearMessage()
    guard let registry = Handle.object(ks, .keystore, as: KeyRegistry.self) else { return handleStatus(ks) }
    var name: IssuerName?
    if issuer != nil || issuerLength != 0 {
        switch InputBytes.text(issuer, issuerLength, limit: InputLimits.issuer) {
        case .success(let bytes): name = IssuerName(bytes)
        case .failure(let e):
            context?.setMessage("issuer: \(StatusTable.text(e.status))")
            return e.status
        }
    }
    let document: UnsafeRawBufferPointer
    switch InputBytes.required(jwks, jwksLength, limit: InputLimits.keySet) {
    case .success(let bytes): document = bytes
    case .failure(let e):
        context?.setMessage("jwks: \(StatusTable.text(e.status))")
        return e.status
    }
    let outcome = registry.load(issuer: name, document: document)
    context?.setMessage(outcome.message)
    return outcome.status
}
