internal import CJWTKernelSIMD

/// Reads the token of an `Authorization: Bearer <token>` value: the one grammar of every front end (the
/// Swift integrations, the forward-auth agent, and through `jwtk_bearer_token` the nginx module, the Lua
/// handler and the C library's other hosts). (Not called `BearerAuthorization`: Vapor has a type of that
/// name, and its users import both modules.)
///
/// RFC 6750 section 2.1 with RFC 9110 section 11: `credentials = auth-scheme 1*SP b64token`, the scheme
/// matched case-insensitively (`bearer` and `BEARER` are Bearer too, which hummingbird-auth's `headers.bearer`
/// does not accept), `b64token = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="`. Anything
/// else is no bearer token: a tab after the scheme, a space or a comma inside the token, an empty token. The
/// value's own leading and trailing spaces and tabs are not part of it (RFC 9110 section 5.5: OWS around a
/// field value), so they are skipped. The token is not checked further here: the verifier refuses anything
/// that is not a compact JWS.
public enum AuthorizationHeader {
    /// The token, or nil when the value is another scheme or no bearer credential.
    public static func bearerToken(in header: some StringProtocol) -> Substring? {
        let text = Substring(header)
        let range: Range<Int>? =
            text.utf8.withContiguousStorageIfAvailable {
                bearerTokenRange(in: UnsafeRawBufferPointer($0))
            } ?? Array(text.utf8).withUnsafeBytes { bearerTokenRange(in: $0) }
        guard let range else { return nil }
        let start = text.utf8.index(text.startIndex, offsetBy: range.lowerBound)
        let end = text.utf8.index(start, offsetBy: range.count)
        return text[start..<end]
    }

    /// The same on bytes, allocation-free (the C library's `jwtk_bearer_token`): the token's byte range.
    public static func bearerTokenRange(in value: UnsafeRawBufferPointer) -> Range<Int>? {
        var start = 0
        var end = value.count
        while start < end, value[start] == 0x20 || value[start] == 0x09 { start += 1 }
        while end > start, value[end - 1] == 0x20 || value[end - 1] == 0x09 { end -= 1 }
        let scheme: StaticString = "bearer"
        let schemeLength = scheme.utf8CodeUnitCount
        guard end - start > schemeLength + 1 else { return nil }
        for i in 0..<schemeLength where value[start + i] | 0x20 != scheme.utf8Start[i] { return nil }
        var index = start + schemeLength
        guard value[index] == 0x20 else { return nil }
        while index < end, value[index] == 0x20 { index += 1 }
        let token = index
        // Whole 16-byte blocks with SSE2 (the token is most of the value), then the byte loop decides the rest.
        if let base = value.baseAddress?.assumingMemoryBound(to: UInt8.self) {
            index += jkernel_b64token_prefix(base + index, end - index)
        }
        while index < end, isTokenCharacter(value[index]) { index += 1 }
        guard index > token else { return nil }
        while index < end, value[index] == 0x3D { index += 1 }  // "=" padding, only at the end
        return index == end ? token..<end : nil
    }

    /// ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/": one bit per ASCII byte in two words, so the scan over a
    /// token of a thousand bytes costs a shift and a test per byte rather than a chain of range compares.
    @inline(__always)
    private static func isTokenCharacter(_ byte: UInt8) -> Bool {
        let low: UInt64 = 0x03FF_E800_0000_0000  // "+", "-", ".", "/", 0-9
        let high: UInt64 = 0x47FF_FFFE_87FF_FFFE  // A-Z, "_", a-z, "~"
        let word = byte < 64 ? low : byte < 128 ? high : 0
        return word >> UInt64(byte & 63) & 1 == 1
    }
}
