import CJWTK
import FuzzSupport
@_spi(Internals) import JWTKernel

/// Mode 1's input also as an `Authorization` value and as a realm (the gateway contract, which the nginx
/// module and the Lua handler hand client bytes to): jwtk_bearer_token's token lies inside the value and is a
/// b64token, and equals the core's `AuthorizationHeader`; jwtk_challenge measures and writes the same bytes as
/// the core's `BearerChallenge`, with no control character (a realm cannot split the header), and a buffer
/// one byte short is refused with the length needed.
func checkGatewayContract(_ input: [UInt8]) {
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
