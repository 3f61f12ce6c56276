import CJWTK
import FuzzSupport
@_spi(Internals) import JWTKernel

/// Mode 1's input also as an `Authorization` value and as a realm (the gateway contract, which the nginx
/// module and the Lua handler hand client bytes to): jwtk_bearer_token's token lies inside the value and is a
/// b64token, and equals the core's `AuthorizationHeader`; jwtk_challenge measures and writes the same bytes as
/// the core's `BearerChallenge`, with no control character (a realm cannot split the header), and a buffer
/// one byte short is refused with the length needed. And as a `Cookie` header: jwtk_cookie_value's value of
/// `jwt` lies inside the header, holds no ";", follows its own pair's name and "=", and is `CookieHeader`'s.
func checkGatewayContract(_ input: [UInt8]) {
    checkCookie(input)
    input.withUnsafeBytes { raw in
        let value = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
        var token = jwtk_str()
        require(jwtk_bearer_token(value, raw.count, &token) == JWTK_OK, "jwtk_bearer_token refused a value")
        let core = AuthorizationHeader.bearerTokenRange(in: raw)
        if let core {
            require(token.ptr == value.map { $0 + core.lowerBound } && token.len == core.count, "token differs")
            for byte in raw[core] {
                let ok =
                    (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39)
                    || "-._~+/=".utf8.contains(byte)
                require(ok, "a token byte outside b64token: \(byte)")
            }
        } else {
            require(token.ptr == nil && token.len == 0, "no bearer token, yet a token")
        }

        var needed = 0
        require(
            jwtk_challenge(JWTK_EXPIRED, value, raw.count, nil, 0, nil, 0, &needed) == JWTK_E_LENGTH,
            "measuring a challenge")
        var out = [CChar](repeating: 0, count: needed)
        var written = 0
        require(
            jwtk_challenge(JWTK_EXPIRED, value, raw.count, nil, 0, &out, needed, &written) == JWTK_OK
                && written == needed, "writing a challenge")
        let error: StaticString = "invalid_token"
        let parts = BearerChallenge.Parts(
            realm: raw, error: UnsafeRawBufferPointer(start: error.utf8Start, count: error.utf8CodeUnitCount),
            scope: UnsafeRawBufferPointer(start: nil, count: 0))
        var swift = [UInt8](repeating: 0, count: needed)
        let swiftCount = swift.withUnsafeMutableBytes { BearerChallenge.write(parts, into: $0) }
        require(swiftCount == needed && swift == out.map { UInt8(bitPattern: $0) }, "C and Swift challenges differ")
        require(!swift.contains { $0 < 0x20 || $0 == 0x7F }, "a control character in a challenge")
        if needed > 0 {
            var short = 0
            require(
                jwtk_challenge(JWTK_EXPIRED, value, raw.count, nil, 0, &out, needed - 1, &short) == JWTK_E_LENGTH
                    && short == needed, "a buffer one byte short")
        }
    }
}

private func checkCookie(_ input: [UInt8]) {
    input.withUnsafeBytes { raw in
        let header = raw.baseAddress?.assumingMemoryBound(to: CChar.self)
        let name: StaticString = "jwt"
        var value = jwtk_str()
        let status = name.withUTF8Buffer { n in
            n.withMemoryRebound(to: CChar.self) {
                jwtk_cookie_value(header, raw.count, $0.baseAddress, n.count, &value)
            }
        }
        require(status == JWTK_OK, "jwtk_cookie_value refused a header")
        let core = CookieHeader.valueRange(
            in: raw, name: UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount))
        guard let core, let header else {
            require(value.ptr == nil && value.len == 0, "no cookie, yet a value")
            return
        }
        require(value.ptr == header + core.lowerBound && value.len == core.count, "cookie value differs")
        require(!raw[core].contains(0x3B), "a \";\" inside a cookie value")
        // Back from the value to its pair's start: optional DQUOTE, spaces, "=", spaces, then the name itself.
        let pairStart = raw[..<core.lowerBound].lastIndex(of: 0x3B).map { $0 + 1 } ?? 0
        let before = raw[pairStart..<core.lowerBound].filter { $0 != 0x20 && $0 != 0x09 && $0 != 0x22 }
        require(before == Array("jwt=".utf8), "the value does not follow its pair's name: \(before)")
    }
}
