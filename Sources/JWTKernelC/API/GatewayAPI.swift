import CJWTK
import JWTKernel

// The gateway contract of jwtk.h: the core's one bearer grammar (`AuthorizationHeader`), one cookie grammar
// (`CookieHeader`) and one challenge writer (`BearerChallenge`), for the hosts that are not Swift. No handle, no allocation.

@c @implementation
public func jwtk_bearer_token(
    _ value: UnsafePointer<CChar>?, _ length: Int, _ token: UnsafeMutablePointer<jwtk_str>?
) -> Int32 {
    guard let token else { return JWTK_E_NULL }
    token.pointee = jwtk_str()
    guard length > 0 else { return JWTK_OK }
    guard let value else { return JWTK_E_NULL }
    // Safety: the caller promises `length` readable bytes at `value` for the call (jwtk.h); `length` is
    // positive (a size_t above Int.max arrives negative and reads as no value above), and the view is not kept.
    let bytes = UnsafeRawBufferPointer(start: value, count: length)
    guard let range = AuthorizationHeader.bearerTokenRange(in: bytes) else { return JWTK_OK }
    token.pointee = jwtk_str(ptr: value + range.lowerBound, len: range.count)
    return JWTK_OK
}

@c @implementation
public func jwtk_cookie_value(
    _ header: UnsafePointer<CChar>?, _ length: Int, _ name: UnsafePointer<CChar>?, _ nameLength: Int,
    _ value: UnsafeMutablePointer<jwtk_str>?
) -> Int32 {
    guard let value else { return JWTK_E_NULL }
    value.pointee = jwtk_str()
    guard nameLength == 0 || name != nil else { return JWTK_E_NULL }
    guard length > 0, nameLength > 0 else { return JWTK_OK }
    guard let header else { return JWTK_E_NULL }
    // Safety: as jwtk_bearer_token: the caller promises the bytes for the call, the lengths are positive (a size_t
    // above Int.max arrives negative and reads as no value above), and the views are not kept.
    let bytes = UnsafeRawBufferPointer(start: header, count: length)
    let wanted = UnsafeRawBufferPointer(start: name, count: nameLength)
    guard let range = CookieHeader.valueRange(in: bytes, name: wanted) else { return JWTK_OK }
    value.pointee = jwtk_str(ptr: header + range.lowerBound, len: range.count)
    return JWTK_OK
}

@c @implementation
public func jwtk_challenge(
    _ status: Int32, _ realm: UnsafePointer<CChar>?, _ realmLength: Int, _ scope: UnsafePointer<CChar>?,
    _ scopeLength: Int, _ buffer: UnsafeMutablePointer<CChar>?, _ capacity: Int,
    _ outLength: UnsafeMutablePointer<Int>?
) -> Int32 {
    guard let outLength else { return JWTK_E_NULL }
    outLength.pointee = 0
    guard realmLength >= 0, scopeLength >= 0, capacity >= 0 else { return JWTK_E_LENGTH }
    guard realmLength == 0 || realm != nil, scopeLength == 0 || scope != nil, capacity == 0 || buffer != nil
    else { return JWTK_E_NULL }
    let error: StaticString?
    if status == JWTK_E_NO_TOKEN {
        error = nil
    } else if let bearerError = StatusTable.bearerError(status) {
        error = bearerError
    } else {
        return JWTK_OK  // no challenge for this status
    }
    let withScope = status == JWTK_CLAIM_REQUIREMENT_FAILED && scopeLength > 0
    let parts = BearerChallenge.Parts(
        realm: UnsafeRawBufferPointer(start: realmLength > 0 ? realm : nil, count: realmLength),
        error: error.map { UnsafeRawBufferPointer(start: $0.utf8Start, count: $0.utf8CodeUnitCount) }
            ?? UnsafeRawBufferPointer(start: nil, count: 0),
        scope: withScope
            ? UnsafeRawBufferPointer(start: scope, count: scopeLength) : UnsafeRawBufferPointer(start: nil, count: 0))
    let out = capacity > 0 ? UnsafeMutableRawBufferPointer(start: buffer, count: capacity) : nil
    let needed = BearerChallenge.write(parts, into: out)
    outLength.pointee = needed
    return needed <= capacity ? JWTK_OK : JWTK_E_LENGTH
}
