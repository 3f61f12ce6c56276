import CJWTK

@c @implementation
public func jwtk_keystore_new(_ out: UnsafeMutablePointer<OpaquePointer?>?) -> Int32 {
    guard let out else { return JWTK_E_NULL }
    out.pointee = Handle.make(KeystoreState(), .keystore)
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
public func jwtk_keystore_load_jwks_many(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ documents: UnsafePointer<jwtk_str>?, _ count: Int, _ ctx: OpaquePointer?
) -> Int32 {
    loadMany(ks, issuer, issuerLength, documents, count, ctx, allowShortHMACSecrets: false)
}

@c @implementation
public func jwtk_keystore_load_jwks_flags(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ documents: UnsafePointer<jwtk_str>?, _ count: Int, _ flags: UInt32, _ ctx: OpaquePointer?
) -> Int32 {
    guard flags & ~JWTK_LOAD_KNOWN_FLAGS == 0 else { return JWTK_E_RANGE }
    return loadMany(
        ks, issuer, issuerLength, documents, count, ctx,
        allowShortHMACSecrets: flags & JWTK_LOAD_ALLOW_SHORT_HMAC_SECRETS != 0)
}

@c @implementation
public func jwtk_keystore_start(_ ks: OpaquePointer?) -> Int32 {
    guard let keystore = Handle.object(ks, .keystore, as: KeystoreState.self) else { return handleStatus(ks) }
    keystore.start()
    return JWTK_OK
}

/// jwtk_keystore_load_jwks_many and _flags: the documents checked, then loaded together.
private func loadMany(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ documents: UnsafePointer<jwtk_str>?, _ count: Int, _ ctx: OpaquePointer?, allowShortHMACSecrets: Bool
) -> Int32 {
    guard let documents else { return JWTK_E_NULL }
    guard count > 0, count <= InputLimits.keySetDocuments else { return JWTK_E_LENGTH }
    // Safety: the caller promises `count` readable jwtk_str at `documents` for the call (jwtk.h).
    let list = UnsafeBufferPointer(start: documents, count: count)
    return loadKeys(ks, issuer, issuerLength, ctx, allowShortHMACSecrets: allowShortHMACSecrets) {
        () -> Result<[UnsafeRawBufferPointer], StatusError> in
        var views: [UnsafeRawBufferPointer] = []
        views.reserveCapacity(count)
        var total = 0
        for (i, document) in list.enumerated() {
            switch InputBytes.required(document.ptr, document.len, limit: InputLimits.keySet) {
            case .success(let bytes):
                total += bytes.count
                guard total <= InputLimits.keySet else {
                    return .failure(StatusError(JWTK_E_LENGTH, "jwks: the documents together are above 16 MiB"))
                }
                views.append(bytes)
            case .failure(let e):
                return .failure(StatusError(e.status, "jwks #\(i + 1): \(StatusTable.text(e.status))"))
            }
        }
        return .success(views)
    }
}

@c @implementation
public func jwtk_keystore_load_decryption_keys(
    _ ks: OpaquePointer?, _ document: UnsafePointer<CChar>?, _ length: Int, _ ctx: OpaquePointer?
) -> Int32 {
    let context: ContextState?
    switch optionalContext(ctx) {
    case .success(let c): context = c
    case .failure(let e): return e.status
    }
    context?.clearMessage()
    guard let keystore = Handle.object(ks, .keystore, as: KeystoreState.self) else { return handleStatus(ks) }
    switch InputBytes.required(document, length, limit: InputLimits.keySet) {
    case .success(let bytes):
        let outcome = keystore.loadDecryptionKeys(bytes)
        context?.setMessage(outcome.message)
        return outcome.status
    case .failure(let e):
        context?.setMessage("keys: \(StatusTable.text(e.status))")
        return e.status
    }
}

/// Checks every argument, then parses and publishes (see KeystoreState.load).
private func loadKeys(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int,
    _ jwks: UnsafePointer<CChar>?, _ jwksLength: Int, _ ctx: OpaquePointer?
) -> Int32 {
    loadKeys(ks, issuer, issuerLength, ctx) { () -> Result<[UnsafeRawBufferPointer], StatusError> in
        switch InputBytes.required(jwks, jwksLength, limit: InputLimits.keySet) {
        case .success(let bytes): return .success([bytes])
        case .failure(let e): return .failure(StatusError(e.status, "jwks: \(StatusTable.text(e.status))"))
        }
    }
}

/// The common part of the load functions: the context, the keystore and the issuer checked in the
/// header's order, then `documents` (the caller's views, checked), then KeystoreState.load.
private func loadKeys(
    _ ks: OpaquePointer?, _ issuer: UnsafePointer<CChar>?, _ issuerLength: Int, _ ctx: OpaquePointer?,
    allowShortHMACSecrets: Bool = false, documents: () -> Result<[UnsafeRawBufferPointer], StatusError>
) -> Int32 {
    let context: ContextState?
    switch optionalContext(ctx) {
    case .success(let c): context = c
    case .failure(let e): return e.status
    }
    context?.clearMessage()
    guard let keystore = Handle.object(ks, .keystore, as: KeystoreState.self) else { return handleStatus(ks) }
    var name: String?
    if issuer != nil || issuerLength != 0 {
        switch InputBytes.text(issuer, issuerLength, limit: InputLimits.issuer) {
        case .success(let bytes): name = String(decoding: bytes, as: UTF8.self)  // checked UTF-8
        case .failure(let e):
            context?.setMessage("issuer: \(StatusTable.text(e.status))")
            return e.status
        }
    }
    let views: [UnsafeRawBufferPointer]
    switch documents() {
    case .success(let v): views = v
    case .failure(let e):
        context?.setMessage(e.message ?? "\(StatusTable.text(e.status))")
        return e.status
    }
    let outcome = keystore.load(issuer: name, documents: views, allowShortHMACSecrets: allowShortHMACSecrets)
    context?.setMessage(outcome.message)
    return outcome.status
}
