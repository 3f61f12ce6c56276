// FuzzCABI's prepared handles and the checks every C call's result goes through.
import CJWTK
import Foundation
import FuzzSupport
@_spi(Internals) import JWTKernel

// Safety: nonisolated(unsafe) because the handles are created once, before the first input, and
// libFuzzer calls the harness from one thread; keystores and verifiers are thread-safe anyway.
enum CABIFixture {
    nonisolated(unsafe) static let keystore: OpaquePointer = newKeystore()

    /// A keystore holding the fixture HMAC keys for tokens of any issuer.
    static func newKeystore() -> OpaquePointer {
        var ks: OpaquePointer?
        guard jwtk_keystore_new(&ks) == JWTK_OK, let ks else { fatalError("jwtk_keystore_new") }
        let jwks = Array(FuzzFixtures.hmacJWKS.utf8)
        let rc = jwks.withUnsafeBytes {
            jwtk_keystore_load_jwks(ks, nil, 0, $0.baseAddress?.assumingMemoryBound(to: CChar.self), $0.count)
        }
        guard rc == JWTK_OK else { fatalError("fixture JWKS does not load: \(rc)") }
        return ks
    }
    nonisolated(unsafe) static let verifier: OpaquePointer = make(#"{"batch_threads":1}"#)
    nonisolated(unsafe) static let cachedVerifier: OpaquePointer = make(#"{"batch_threads":1,"cache":true}"#)
    nonisolated(unsafe) static let ctx: OpaquePointer = newCtx()
    nonisolated(unsafe) static let ctx2: OpaquePointer = newCtx()
    /// The core's verdict under the C verifier's default policy, with the same keys.
    static let core = JWTVerifier(
        keys: FuzzKeys.all.filtering { $0.kid?.hasPrefix("hs") == true }, clock: FixedClock(FuzzFixtures.now))
    static let tokens = (FuzzFixtures.validTokens + [FuzzFixtures.expiredToken]).map { Array($0.utf8) }
    static let claimNames: [[UInt8]] =
        [
            "iss", "sub", "aud", "exp", "nbf", "iat", "jti", "nonce", "azp", "address.country",
            "https://example.com/roles", "a.b", "a.b.c", "roles.0", "\u{e9}t\u{e9}",
        ].map { Array($0.utf8) }
        + [[], [0xff, 0xfe], [UInt8](repeating: 0x61, count: 1025)]
    /// A valid pointer for empty inputs (a NULL pointer is a different misuse).
    nonisolated(unsafe) static let empty: UnsafePointer<CChar> = UnsafePointer(strdup("")!)

    private static func make(_ config: String) -> OpaquePointer {
        var v: OpaquePointer?
        guard config.withCString({ jwtk_verifier_new($0, strlen($0), keystore, &v) }) == JWTK_OK, let v else {
            fatalError("verifier \(config)")
        }
        return v
    }

    private static func newCtx() -> OpaquePointer {
        var c: OpaquePointer?
        guard jwtk_ctx_new(&c) == JWTK_OK, let c else { fatalError("jwtk_ctx_new") }
        return c
    }
}

extension JWKSet {
    func filtering(_ keep: (VerificationKey) -> Bool) -> JWKSet { JWKSet(keys: keys.filter(keep)) }
}

// jwtk.h's codes: token errors 1-20 (20: claim_requirement_failed), key errors 101-111, misuse -1 to -10
// (-10: JWTK_E_SYNTAX). A verifier the fuzzer configures with "claims" returns 20.
let knownStatuses: Set<CInt> = Set([0] + Array(1...20) + Array(101...111) + Array(-10 ... -1))

func name(_ status: CInt) -> String { String(cString: jwtk_status_name(status)) }

/// A status jwtk.h defines, with its name, description, HTTP status and bearer error.
func requireKnown(_ status: CInt, _ call: String) {
    require(knownStatuses.contains(status), "\(call) returned \(status), not a code of jwtk.h")
    guard let n = jwtk_status_name(status), let e = jwtk_errstr(status) else {
        invariantFailed("\(call): status \(status) has a NULL name or description")
    }
    require(String(cString: n) != "unknown" && !String(cString: e).isEmpty, "\(call): status \(status) is unnamed")
    let http = jwtk_status_http(status)
    let wantHTTP: CInt =
        switch status {
        case 0: 200
        case 20: 403
        case 19: 503
        case 1...18: 401
        default: 500
        }
    require(http == wantHTTP, "jwtk_status_http(\(status)) = \(http), expected \(wantHTTP)")
    // Token errors but keys_unavailable (19) have a challenge error; claim_requirement_failed (20) included.
    require(
        (jwtk_status_bearer_error(status) != nil) == ((1...18).contains(status) || status == 20),
        "jwtk_status_bearer_error(\(status)) disagrees with the status class")
}

func requireErrmsg(_ ctx: OpaquePointer) {
    require(jwtk_ctx_errmsg(ctx) != nil, "jwtk_ctx_errmsg returned NULL")
}

func requireNoToken(_ ctx: OpaquePointer) {
    var value = jwtk_str(ptr: nil, len: 0)
    var type: CInt = -1
    let rc = jwtk_claim(ctx, "sub", 3, &value, &type)
    require(rc == JWTK_E_NO_TOKEN, "jwtk_claim after a failed verification: \(name(rc))")
}

func bytes(_ s: jwtk_str) -> [UInt8]? {
    guard let p = s.ptr else {
        require(s.len == 0, "a jwtk_str with a NULL pointer and length \(s.len)")
        return nil
    }
    return Array(UnsafeRawBufferPointer(start: p, count: s.len))
}

/// jwtk_verify with a fresh out-struct, its outputs checked against the token; returns the status.
func verifyAndCheck(_ v: OpaquePointer?, _ token: [UInt8], now: Int64) -> CInt {
    let ctx = CABIFixture.ctx
    var claims = jwtk_claims()
    claims.struct_size = UInt32(MemoryLayout<jwtk_claims>.size)
    claims.flags = 0xdead
    claims.exp = 77
    return token.withUnsafeBytes { raw in
        let ptr = raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? CABIFixture.empty
        let status = jwtk_verify(v, ctx, ptr, raw.count, now, &claims)
        requireKnown(status, "jwtk_verify")
        requireErrmsg(ctx)
        require(claims.struct_size == UInt32(MemoryLayout<jwtk_claims>.size), "jwtk_verify changed struct_size")
        if status == JWTK_OK {
            checkOutputs(claims, token: raw)
        } else {
            require(
                claims.flags == 0 && claims.exp == 0 && claims.nbf == 0 && claims.iat == 0 && claims.alg.ptr == nil
                    && claims.payload.ptr == nil && claims.claims_json.ptr == nil && claims.iss.ptr == nil,
                "jwtk_verify failed (\(name(status))) but left outputs set")
            requireNoToken(ctx)
        }
        return status
    }
}

/// Base64url without padding, decoded independently of the library.
func decodeSegment(_ s: some Collection<UInt8>) -> [UInt8]? {
    var text = String(decoding: s, as: UTF8.self).replacingOccurrences(of: "-", with: "+")
        .replacingOccurrences(of: "_", with: "/")
    while text.utf8.count % 4 != 0 { text += "=" }
    return Data(base64Encoded: text).map { [UInt8]($0) }
}

/// What a successful jwtk_verify reported is what the token says.
func checkOutputs(_ c: jwtk_claims, token: UnsafeRawBufferPointer) {
    let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    require(parts.count == 3, "jwtk_verify accepted a token of \(parts.count) segments")
    guard let headerBytes = decodeSegment(parts[0]), let payload = decodeSegment(parts[1]),
        let header = try? JSONValue.parse(headerBytes), let claims = try? JSONValue.parse(payload)
    else { invariantFailed("jwtk_verify accepted a token whose segments do not decode") }

    // The payload points into the caller's token, at the second segment.
    let start = parts[0].count + 1
    require(
        c.payload.ptr.map { UnsafeRawPointer($0) } == token.baseAddress.map { $0 + start }
            && c.payload.len == parts[1].count,
        "jwtk_claims.payload is not the token's payload segment")
    require(bytes(c.claims_json) == payload, "jwtk_claims.claims_json is not the decoded payload")
    require(bytes(c.alg) == header["alg"]?.stringValue.map { Array($0.utf8) }, "jwtk_claims.alg is not the header's")
    func same(_ s: jwtk_str, _ v: JSONValue?, _ what: String) {
        let want: [UInt8]? = if case .string(let x) = v { Array(x.utf8) } else { nil }
        require(bytes(s) == want, "jwtk_claims.\(what) is not the token's")
    }
    same(c.kid, header["kid"], "kid")
    same(c.typ, header["typ"], "typ")
    same(c.iss, claims["iss"], "iss")
    same(c.sub, claims["sub"], "sub")
    same(c.jti, claims["jti"], "jti")
    switch claims["aud"] {
    case .array(let a)?:
        require(c.flags & JWTK_CLAIMS_AUD_ARRAY != 0, "aud is an array, JWTK_CLAIMS_AUD_ARRAY not set")
        require(
            bytes(c.aud).flatMap { try? JSONValue.parse($0) } == .array(a), "jwtk_claims.aud is not the aud array")
    default:
        require(c.flags & JWTK_CLAIMS_AUD_ARRAY == 0, "JWTK_CLAIMS_AUD_ARRAY set for a non-array aud")
        same(c.aud, claims["aud"], "aud")
    }
    func time(_ flag: UInt32, _ value: Int64, _ name: String) {
        let v = claims[name]
        require((c.flags & flag != 0) == (v != nil), "jwtk_claims: flag of \(name) disagrees with the claims")
        if let d = v?.doubleValue {
            let want: Int64 = d >= 9.2e18 ? .max : d <= -9.2e18 ? .min : Int64(d.rounded(.down))
            require(value == want, "jwtk_claims.\(name) = \(value), the claim says \(d)")
        } else {
            require(value == 0, "jwtk_claims.\(name) set without the claim")
        }
    }
    time(UInt32(JWTK_CLAIMS_HAS_EXP), c.exp, "exp")
    time(UInt32(JWTK_CLAIMS_HAS_NBF), c.nbf, "nbf")
    time(UInt32(JWTK_CLAIMS_HAS_IAT), c.iat, "iat")
}

/// jwtk_claim for each name on the ctx of the last successful verification; every value is
/// compared after all lookups, since results must stay valid together.
func checkClaims(_ ctx: OpaquePointer, token: [UInt8], names: [[UInt8]]) {
    let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    guard parts.count == 3, let payload = decodeSegment(parts[1]),
        case .object(let members)? = try? JSONValue.parse(payload)
    else { invariantFailed("claims of an accepted token do not parse") }
    var results: [(name: [UInt8], value: jwtk_str, type: CInt)] = []
    for n in names {
        var value = jwtk_str(ptr: nil, len: 0)
        var type: CInt = -1
        let rc = n.withUnsafeBytes { raw in
            jwtk_claim(
                ctx, raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? CABIFixture.empty, raw.count, &value, &type
            )
        }
        requireKnown(rc, "jwtk_claim")
        let valid = String(validating: n, as: UTF8.self) != nil
        let want: CInt = n.isEmpty || n.count > 1024 ? JWTK_E_LENGTH : !valid ? JWTK_E_UTF8 : JWTK_OK
        require(rc == want, "jwtk_claim(\(n)) returned \(name(rc)), expected \(name(want))")
        if rc == JWTK_OK {
            require((0...6).contains(type), "jwtk_claim type \(type)")
            require((type == JWTK_JSON_NONE) == (value.ptr == nil), "jwtk_claim: type \(type) with value \(value)")
            results.append((n, value, type))
        }
    }
    for r in results {
        // The whole name is tried first, so a top-level member of exactly this name is the answer.
        guard let member = members.first(where: { Array($0.name.utf8) == r.name }) else {
            if !r.name.contains(UInt8(ascii: ".")) {
                require(r.type == JWTK_JSON_NONE, "jwtk_claim found \(String(decoding: r.name, as: UTF8.self)), absent")
            }
            continue
        }
        let got = bytes(r.value) ?? []
        let nameText = String(decoding: r.name, as: UTF8.self)
        switch member.value {
        case .string(let s):
            require(r.type == JWTK_JSON_STRING && got == Array(s.utf8), "jwtk_claim(\(nameText)): string differs")
        case .number(let text):
            require(r.type == JWTK_JSON_NUMBER && got == Array(text.utf8), "jwtk_claim(\(nameText)): number differs")
        case .bool(let b):
            require(
                r.type == JWTK_JSON_BOOL && got == Array((b ? "true" : "false").utf8), "jwtk_claim(\(nameText)): bool")
        case .null:
            require(r.type == JWTK_JSON_NULL && got == Array("null".utf8), "jwtk_claim(\(nameText)): null")
        case .array:
            require(
                r.type == JWTK_JSON_ARRAY && (try? JSONValue.parse(got)) == member.value,
                "jwtk_claim(\(nameText)): array differs")
        case .object:
            require(
                r.type == JWTK_JSON_OBJECT && (try? JSONValue.parse(got)) == member.value,
                "jwtk_claim(\(nameText)): object differs")
        }
    }
}
