import FuzzSupport
@_spi(Internals) import JWTKernel

// Invariants 2, 3 (what holds for every accepted token) and 4 (a flipped bit fails it).
#if canImport(Glibc)
import Glibc
#endif

/// 2 and 3: what must hold for every token a policy accepts.
func acceptedInvariants(_ jwt: VerifiedJWT, _ token: UnsafeRawBufferPointer, policy: ClaimsPolicy) {
    let alg = jwt.algorithm
    require(jwt.key.algorithms.contains(alg), "accepted \(alg.rawValue) with key \(jwt.key) that does not allow it")
    require(policy.algorithms.contains(alg), "accepted \(alg.rawValue), which the policy does not allow")
    switch (alg.family, jwt.key.type) {
    case (.hmac, .oct), (.rsaPKCS1, .rsa), (.rsaPSS, .rsa), (.ecdsa, .ec), (.eddsa, .okp): break
    default: invariantFailed("accepted \(alg.rawValue) with a \(jwt.key.type) key")
    }
    if let kid = jwt.kid { require(kid == jwt.key.kid, "token kid \(kid) but key kid \(jwt.key.kid ?? "nil")") }

    // Canonical: the token is exactly the encoding of what it decoded to.
    let segments = Array(token).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
    require(segments.count == 3, "accepted token has \(segments.count) segments")
    require(Array(Base64URL.encode(jwt.header).utf8) == Array(segments[0]), "header segment is not canonical")
    require(Array(Base64URL.encode(jwt.claimsJSON).utf8) == Array(segments[1]), "payload segment is not canonical")

    // Header, read independently.
    do {
        let header = try JSONValue.parse(jwt.header)
        require(
            header["alg"]?.stringValue == alg.rawValue,
            "header alg \(String(describing: header["alg"])) but verified as \(alg.rawValue)")
        require(header["crit"] == nil, "accepted a header with crit")
        if case .string(let k)? = header["kid"] {
            require(jwt.kid == k, "kid accessor \(jwt.kid ?? "nil") vs header \(k)")
        } else {
            require(jwt.kid == nil, "kid accessor without a string kid")
        }
    } catch {
        invariantFailed("accepted a header that JSONValue refuses: \(error)")
    }

    // Time checks against the policy (default leeway 60, strict 30). `now` is whole seconds, so a fraction
    // rounds toward refusal: exp counts from its floor, nbf from its ceiling (the Double's, which is never
    // stricter than the digits' for the timestamps a fuzzer's clock meets).
    let t = Double(now), leeway = Double(max(0, policy.leeway))
    if policy.requireExpiration { require(jwt.expiresAt != nil, "accepted without exp") }
    if let exp = jwt.expiresAt {
        require(t < exp.rounded(.down) + leeway, "accepted expired token: exp \(exp)")
    }
    if let nbf = jwt.notBefore { require(t + leeway >= nbf.rounded(.up), "accepted token before nbf \(nbf)") }

    // Claims, read independently.
    do {
        let claims = try JSONValue.parse(jwt.claimsJSON)
        guard let members = claims.objectValue else { invariantFailed("accepted claims that are not an object") }
        var names = Set<[UInt8]>()
        for m in members { require(names.insert(Array(m.name.utf8)).inserted, "duplicate top-level claim \(m.name)") }
        func number(_ name: String) -> Double? {
            guard let v = claims[name] else { return nil }
            guard case .number(let text) = v else { invariantFailed("\(name) accepted but is not a number: \(v)") }
            return Double(text)
        }
        require(
            number("exp") == jwt.expiresAt,
            "exp \(String(describing: jwt.expiresAt)) vs JSON \(String(describing: number("exp")))")
        require(number("nbf") == jwt.notBefore, "nbf differs from the JSON")
        require(number("iat") == jwt.issuedAt, "iat differs from the JSON")
        require(claims["iss"]?.stringValue == jwt.issuer, "iss differs from the JSON")
        require(claims["sub"]?.stringValue == jwt.subject, "sub differs from the JSON")
        require(claims["nonce"]?.stringValue == jwt.nonce, "nonce differs from the JSON")
        require(claims["azp"]?.stringValue == jwt.authorizedParty, "azp differs from the JSON")
        switch claims["aud"] {
        case nil: require(jwt.audiences.isEmpty, "audiences without aud")
        case .string(let s)?: require(jwt.audiences == [s], "aud \(s) vs \(jwt.audiences)")
        case .array(let a)?:
            require(a.map(\.stringValue) == jwt.audiences.map(Optional.some), "aud array vs \(jwt.audiences)")
        case let other?: invariantFailed("accepted aud of the wrong type: \(other)")
        }
        for name in ["iss", "sub", "jti", "nonce", "azp"] {
            if let v = claims[name] { require(v.stringValue != nil, "accepted non-string \(name)") }
        }
        require(jwt.claims == claims, "VerifiedJWT.claims differs from JSONValue.parse(claimsJSON)")
    } catch {
        // (Before 57a1d7f nested duplicate names got here: the token verified, `claims` was empty.)
        invariantFailed("accepted claims that JSONValue refuses: \(error)")
    }
}

/// 4. One flipped bit in the signature or the claims of an accepted token must fail it.
func mutationInvariants(_ jwt: VerifiedJWT, _ token: UnsafeRawBufferPointer) {
    let segments = Array(token).split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).map { Array($0) }
    guard segments.count == 3, var sig = Base64URL.decode(String(decoding: segments[2], as: UTF8.self)), !sig.isEmpty
    else {
        invariantFailed("accepted token whose signature segment does not decode")
    }
    // Position from the token's bytes, so runs are deterministic.
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in token { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    sig[Int(h % UInt64(sig.count))] ^= UInt8(1) << (h >> 8 & 7)
    let forged =
        segments[0] + [UInt8(ascii: ".")] + segments[1] + [UInt8(ascii: ".")] + Array(Base64URL.encode(sig).utf8)
    let r = forged.withUnsafeBytes { verifyResult(defaultVerifier, $0) }
    require(r.failureValue?.code == .badSignature, "signature with a flipped bit: \(describe(r))")

    var claims = jwt.claimsJSON
    if !claims.isEmpty {
        claims[Int((h >> 16) % UInt64(claims.count))] ^= UInt8(1) << (h >> 24 & 7)
        let tampered =
            segments[0] + [UInt8(ascii: ".")] + Array(Base64URL.encode(claims).utf8) + [UInt8(ascii: ".")] + segments[2]
        let r2 = tampered.withUnsafeBytes { verifyResult(defaultVerifier, $0) }
        require(r2.failureValue?.code == .badSignature, "claims with a flipped bit: \(describe(r2))")
    }
}
