import CJWTK

@c @implementation
public func jwtk_keystore_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return JWTK_E_NULL }
    out.pointee = Handle.make(Keystore(), .keystore)
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
    guard let keystore = Handle.object(ks, .keystore, as: Keystore.self) else { return handleStatus(ks) }
    keystore.start()
    return JWTK_OK
}

/// Checks every argument, then parses and publishes (see Keystore.load).
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
    guard let keystore = Handle.object(ks, .keystore, as: Keystore.self) else { return handleStatus(ks) }
    var name: String?
    if issuer != nil || issuerLength != 0 {
        switch InputBytes.text(issuer, issuerLength, limit: InputLimits.issuer) {
        case .success(let bytes): name = String(decoding: bytes, as: UTF8.self)  // checked UTF-8
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
    let outcome = keystore.load(issuer: name, document: document)
    context?.setMessage(outcome.message)
    return outcome.status
}
