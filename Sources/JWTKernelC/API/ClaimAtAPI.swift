import CJWTK
@_spi(Internals) import JWTKernel

@c @implementation
public func jwtk_claim_at(
    _ ctx: OpaquePointer?, _ pointer: UnsafePointer<CChar>?, _ pointerLength: Int, _ flags: UInt32,
    _ value: UnsafeMutablePointer<jwtk_str>?, _ jsonType: UnsafeMutablePointer<Int32>?
) -> Int32 {
    guard let context = Handle.object(ctx, .context, as: ContextState.self) else { return handleStatus(ctx) }
    guard let value, let jsonType else { return JWTK_E_NULL }
    value.pointee = jwtk_str()
    jsonType.pointee = JWTK_JSON_NONE
    // Unknown bits would be a newer caller's flags: answering without them would be a wrong answer.
    guard flags & ~(JWTK_AT_HEADER | JWTK_AT_JOIN) == 0 else { return JWTK_E_RANGE }
    let path: UnsafeRawBufferPointer
    switch pointerText(pointer, pointerLength) {
    case .success(let bytes): path = bytes
    case .failure(let e): return e.status
    }
    switch JSONPointer.validate(path) {
    case nil: break
    case .noLeadingSlash?:
        context.setMessage("pointer is neither empty nor starts with \"/\"")
        return JWTK_E_SYNTAX
    case .badEscape?:
        context.setMessage("pointer has a \"~\" not followed by \"0\" or \"1\"")
        return JWTK_E_SYNTAX
    }
    guard let layout = context.verified else { return JWTK_E_NO_TOKEN }
    let region = flags & JWTK_AT_HEADER != 0 ? layout.header : layout.claims
    guard let span = JSONPointer.resolve(path, in: region.bytes) else { return JWTK_OK }
    switch span.kind {
    case .string:
        value.pointee = context.string(span, region)
    case .array where flags & JWTK_AT_JOIN != 0:
        value.pointee = context.joined(span, region) ?? context.raw(span, region)
    default:
        value.pointee = context.raw(span, region)
    }
    jsonType.pointee = jsonTypeCode(span.kind)
    return JWTK_OK
}

/// The pointer's bytes: as jwtk_claim's name (UTF-8, at most the claim-name limit), except that the
/// empty pointer is valid (the whole document) and may come as NULL.
private func pointerText(_ pointer: UnsafePointer<CChar>?, _ length: Int) -> Result<UnsafeRawBufferPointer, StatusError>
{
    guard length != 0 else { return .success(UnsafeRawBufferPointer(start: nil, count: 0)) }
    return InputBytes.text(pointer, length, limit: InputLimits.claimName)
}
