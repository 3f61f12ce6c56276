// The HMAC key sets and tokens FuzzKeyStore's scripts use, made once at start-up: keys "s<S>k<K>"
// (set S, key K), every token signed HS256 by one of them for one issuer, and the verdict a plain
// `JWTVerifier` holding each set gives each token (the oracle for the store's routed verification).
import CFuzzCrypto
import FuzzSupport
@_spi(Internals) import JWTKernel

enum PreparedKeys {
    /// Four disjoint sets of two keys.
    static let setCount = 4
    static let keyCount = 2 * setCount

    static func setOf(key: Int) -> Int { key / 2 }

    static func secret(_ key: Int) -> [UInt8] { (0..<32).map { UInt8(truncatingIfNeeded: key * 31 + $0 * 7 + 1) } }

    static func kid(_ key: Int) -> String { "s\(setOf(key: key))k\(key % 2)" }

    static let keys: [VerificationKey] = (0..<keyCount).map { key in
        var k: [UInt8] = []
        secret(key).withUnsafeBytes { ReferenceBase64URL.encode($0, into: &k) }
        let jwk = #"{"kty":"oct","alg":"HS256","kid":"\#(kid(key))","k":"\#(String(decoding: k, as: UTF8.self))"}"#
        guard let set = try? JWKSet(json: Array(jwk.utf8)), set.keys.count == 1 else {
            fatalError("prepared key \(key) does not load")
        }
        return set.keys[0]
    }

    /// The disjoint sets, then one that keeps a key of set 0 beside one of set 1 (a rotation that
    /// keeps a key), then an empty set.
    static let sets: [JWKSet] =
        (0..<setCount).map { s in JWKSet(keys: [keys[2 * s], keys[2 * s + 1]]) }
        + [JWKSet(keys: [keys[0], keys[2]]), JWKSet(keys: [])]

    /// tokens[issuer][key]: `{"iss":issuer,"sub":"u","exp":now+3600}` signed by `key`.
    static let tokens: [[[UInt8]]] = allIssuers.map { issuer in
        (0..<keyCount).map { key in
            let header = #"{"alg":"HS256","typ":"JWT","kid":"\#(kid(key))"}"#
            let claims = #"{"iss":"\#(issuer)","sub":"u","exp":\#(FuzzFixtures.now + 3600)}"#
            return sign(Array(header.utf8), Array(claims.utf8), secret(key))
        }
    }

    /// expected[set][issuer][key]: a plain verifier's verdict (nil: accepted).
    static let expected: [[[JWTErrorCode?]]] = sets.map { set in
        allIssuers.indices.map { issuer in
            let verifier = referenceVerifier(set, issuer: issuer)
            return (0..<keyCount).map { key in tokens[issuer][key].withUnsafeBytes { verifier.check($0) }?.code }
        }
    }

    /// What the store's verifier for `issuer` must agree with: the same policy, the keys fixed.
    static func referenceVerifier(_ keys: JWKSet, issuer: Int) -> JWTVerifier {
        JWTVerifier(
            keys: keys, policy: ClaimsPolicy(issuers: [allIssuers[issuer]]), clock: FixedClock(FuzzFixtures.now))
    }

    private static func sign(_ header: [UInt8], _ claims: [UInt8], _ secret: [UInt8]) -> [UInt8] {
        var token: [UInt8] = []
        header.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &token) }
        token.append(UInt8(ascii: "."))
        claims.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &token) }
        var mac = [UInt8](repeating: 0, count: 32)
        var len: UInt32 = 0
        _ = HMAC(EVP_sha256(), secret, Int32(secret.count), token, token.count, &mac, &len)
        token.append(UInt8(ascii: "."))
        mac.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &token) }
        return token
    }
}
