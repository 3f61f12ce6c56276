import CJWTK
@_spi(Internals) import JWTKernel

@c @implementation
public func jwtk_claim(
    _ ctx: OpaquePointer?, _ name: UnsafePointer<CChar>?, _ nameLength: Int,
    _ value: UnsafeMutablePointer<jwtk_str>?, _ jsonType: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let context = Handle.object(ctx, .context, as: ContextState.self) else { return handleStatus(ctx) }
    guard let value, let jsonType else { return JWTK_E_NULL }
    value.pointee = jwtk_str()
    jsonType.pointee = JWTK_JSON_NONE
    let key: UnsafeRawBufferPointer
    switch InputBytes.text(name, nameLength, limit: InputLimits.claimName) {
    case .success(let bytes): key = bytes
    case .failure(let e): return e.status
    }
    guard let layout = context.verified else { return JWTK_E_NO_TOKEN }
    guard let span = ClaimLookup.find(key, in: layout.claims.bytes) else { return JWTK_OK }
    switch span.kind {
    case .string:
        value.pointee = context.claimString(span, layout)
        jsonType.pointee = JWTK_JSON_STRING
    default:
        value.pointee = context.claimRaw(span, layout)
        jsonType.pointee = jsonTypeCode(span.kind)
    }
    return JWTK_OK
}

func jsonTypeCode(_ kind: JSONKind) -> Int32 {
    switch kind {
    case .string: JWTK_JSON_STRING
    case .number: JWTK_JSON_NUMBER
    case .true, .false: JWTK_JSON_BOOL
    case .null: JWTK_JSON_NULL
    case .array: JWTK_JSON_ARRAY
    case .object: JWTK_JSON_OBJECT
    }
}
