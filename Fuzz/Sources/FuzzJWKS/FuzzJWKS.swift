// FuzzJWKS: bytes through JWKSet(json:) (JWKS, single JWK, {kid: PEM} map, x5c certificates).
// Bytes that look like DER (0x30) also go through VerificationKey(spkiDER:), and PEM text
// through VerificationKey(pem:). Run under ASan/LSan: no crash and no leak, in particular of
// OpenSSL objects on the error paths.
//
// Invariants for a loaded set: JSONValue accepts the document; every key has algorithms that
// fit its type (RSA >= 2048 bits, HMAC secrets >= hash length); no HMAC secret sits beside a
// public key; loading is deterministic; the fixture tokens verify against it without crashing
// and only with a key that allows the token's alg.
import FuzzSupport
@_spi(Internals) import JWTKernel

let fixtureTokens = (FuzzFixtures.validTokens + [FuzzFixtures.expiredToken, FuzzFixtures.ambiguousToken]).map {
    Array($0.utf8)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJWKS(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { buf.deallocate() }
    if size > 0 { buf.copyMemory(from: UnsafeRawBufferPointer(start: data, count: size)) }
    let bytes = UnsafeRawBufferPointer(buf)

    if case .success(let set) = Result(catching: { () throws(KeyError) in try JWKSet(json: bytes) }) {
        checkSet(set, bytes)
    }
    if bytes.first == 0x30 {
        if let key = try? VerificationKey(spkiDER: Array(bytes)) { checkKey(key) }
    }
    if bytes.starts(with: Array("-----BEGIN".utf8)) {
        if let key = try? VerificationKey(pem: String(decoding: bytes, as: UTF8.self), kid: "p") { checkKey(key) }
    }
    return 0
}

func checkSet(_ set: JWKSet, _ bytes: UnsafeRawBufferPointer) {
    require((try? JSONValue.parse(bytes)) != nil, "JWKSet loaded a document JSONValue refuses")
    for key in set.keys { checkKey(key) }
    let hasPublic = set.keys.contains { if case .oct = $0.type { false } else { true } }
    let hasSecret = set.keys.contains { if case .oct = $0.type { true } else { false } }
    require(!(hasPublic && hasSecret), "key set holds HMAC secrets beside public keys")
    // A kid names at most one key per algorithm (JWKSet refuses ambiguous duplicates).
    for (i, a) in set.keys.enumerated() {
        for b in set.keys[(i + 1)...] where a.kid != nil && b.kid != nil && Array(a.kid!.utf8) == Array(b.kid!.utf8) {
            require(a.algorithms.isDisjoint(with: b.algorithms), "two keys named \(a.kid!) share algorithms")
        }
    }

    guard let again = try? JWKSet(json: bytes) else { invariantFailed("second load of the same bytes fails") }
    require(
        again.keys.map(\.description) == set.keys.map(\.description) && again.rejected == set.rejected,
        "loading is not deterministic")

    // Verify the fixture tokens against the fuzzed set: must not crash; acceptance only via a fitting key.
    let verifier = JWTVerifier(keys: set, clock: FixedClock(FuzzFixtures.now))
    for token in fixtureTokens {
        let r = token.withUnsafeBytes { t in Result { () throws(JWTError) in try verifier.verify(t) { $0.copy() } } }
        if case .success(let jwt) = r {
            require(
                jwt.key.algorithms.contains(jwt.algorithm),
                "token accepted by key \(jwt.key) that does not allow \(jwt.algorithm)")
            require(set.keys.contains { $0 === jwt.key }, "token accepted by a key outside the set")
        }
    }
}

func checkKey(_ key: VerificationKey) {
    let algs = key.algorithms
    _ = key.description
    require(!algs.isEmpty, "key \(key) allows no algorithm")
    let fits: AlgorithmSet
    switch key.type {
    case .rsa(let bits):
        require(bits >= VerificationKey.minimumRSABits, "RSA key of \(bits) bits loaded")
        fits = .rsa
    case .ec(let curve):
        let alg: JWTAlgorithm =
            switch curve {
            case .p256: .es256
            case .p384: .es384
            case .p521: .es512
            case .secp256k1: .es256k
            }
        fits = AlgorithmSet([alg])
    case .okp(.ed25519): fits = AlgorithmSet([JWTAlgorithm.edDSA, .ed25519])
    case .okp(.ed448): fits = AlgorithmSet([JWTAlgorithm.edDSA, .ed448])
    case .oct(let n):
        fits = AlgorithmSet([JWTAlgorithm.hs256, .hs384, .hs512].filter { $0.hashLength <= n })
    }
    require(algs.isSubset(of: fits), "key \(key) allows algorithms its type does not fit")
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzJWKS", fuzzJWKS) }
}
#endif
