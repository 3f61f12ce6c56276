// FuzzCABI: the C library's entry points (jwtk.h), called directly as a C host would.
// The first byte picks the mode:
//   0  verifier configuration JSON: jwtk_verifier_new_ex on the prepared keystore, then the
//      fixture token through the new verifier;
//   1  a raw token through jwtk_verify (prepared HMAC keystore, with and without the cache) and
//      jwtk_verify_batch, then jwtk_claim lookups of a fixed list of names; the same bytes as an
//      Authorization value and a realm through the gateway contract (GatewayContractChecks.swift);
//   2  structure-aware: `headerJSON 0x00 claimsJSON [0x00 name]...`, signed HS256, verified, and
//      every name after the claims looked up with jwtk_claim;
//   3  a key document through jwtk_keystore_load_jwks_ex into a fresh keystore, then the fixture
//      tokens through a verifier on it.
// Invariants (`CABIChecks.swift`): every status is a code jwtk.h defines, with a name, a description
// and an HTTP status; the C verdict equals the core's `JWTVerifier` verdict under the same policy
// (mode 1 and 2), batch and cached verification agree with it; a success's outputs point into the
// token (payload) or say what the token says (alg, kid, typ, iss, sub, aud, jti, times, claims JSON);
// a failure zeroes them and makes jwtk_claim JWTK_E_NO_TOKEN; claim values match an independent read.
import CJWTK
import FuzzSupport
@_spi(Internals) import JWTKernel

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzCABI(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 1, let data else { return 0 }
    let rest = Array(UnsafeRawBufferPointer(start: data + 1, count: size - 1))
    switch data[0] % 4 {
    case 0: fuzzConfig(rest)
    case 1: fuzzToken(rest, names: CABIFixture.claimNames)
    case 2: fuzzSignedToken(rest)
    default: fuzzKeyDocument(rest)
    }
    return 0
}

/// Mode 0: a configuration; if accepted, the new verifier runs the fixture tokens. A keystore of
/// its own: a pull-mode config ("jwks_url") registers a remote source in it, which would change
/// what later inputs see (no thread is started: jwtk_keystore_start is never called here).
func fuzzConfig(_ config: [UInt8]) {
    let ctx = CABIFixture.ctx
    let ks = CABIFixture.newKeystore()
    defer { jwtk_keystore_free(ks) }
    var v: OpaquePointer?
    let status = config.withUnsafeBytes { raw in
        jwtk_verifier_new_ex(raw.baseAddress?.assumingMemoryBound(to: CChar.self), raw.count, ks, ctx, &v)
    }
    requireKnown(status, "jwtk_verifier_new_ex")
    require(
        (status == JWTK_OK) == (v != nil),
        "jwtk_verifier_new_ex: status \(status) with verifier \(String(describing: v))")
    requireErrmsg(ctx)
    guard let v else { return }
    defer { jwtk_verifier_free(v) }
    for token in CABIFixture.tokens {
        _ = verifyAndCheck(v, token, now: FuzzFixtures.now)
    }
}

/// Mode 1: a raw token through both prepared verifiers and the batch path; the core must agree.
func fuzzToken(_ token: [UInt8], names: [[UInt8]]) {
    checkGatewayContract(token)
    let status = verifyAndCheck(CABIFixture.verifier, token, now: FuzzFixtures.now)
    let want = token.withUnsafeBytes { CABIFixture.core.check($0) }
    require(
        status == (want.map { CInt($0.code.number) } ?? JWTK_OK),
        "jwtk_verify says \(name(status)), the core says \(want?.code.name ?? "ok")")
    // The cached verifier, twice (the second may be a hit), and the batch path: the same verdict.
    for _ in 0..<2 {
        let cached = token.withUnsafeBytes { raw in
            jwtk_verify(
                CABIFixture.cachedVerifier, CABIFixture.ctx2, raw.baseAddress?.assumingMemoryBound(to: CChar.self),
                raw.count, FuzzFixtures.now, nil)
        }
        require(cached == status, "cached verifier says \(name(cached)), uncached \(name(status))")
    }
    var batch: CInt = 99
    token.withUnsafeBytes { raw in
        var ptr: UnsafePointer<CChar>? = raw.baseAddress?.assumingMemoryBound(to: CChar.self) ?? CABIFixture.empty
        var len = raw.count
        let rc = jwtk_verify_batch(CABIFixture.verifier, &ptr, &len, 1, FuzzFixtures.now, &batch)
        require(rc == JWTK_OK, "jwtk_verify_batch returned \(name(rc))")
    }
    require(batch == status, "jwtk_verify_batch says \(name(batch)), jwtk_verify \(name(status))")
    // jwtk_verify above left its result on ctx: look claims up (the claims JSON is read afresh).
    if status == JWTK_OK {
        checkClaims(CABIFixture.ctx, token: token, names: names)
    } else {
        requireNoToken(CABIFixture.ctx)
    }
}

/// Mode 2: header and claims from the input, signed with the fixture HMAC key; names follow.
func fuzzSignedToken(_ input: [UInt8]) {
    let parts = input.split(separator: 0, maxSplits: 9, omittingEmptySubsequences: false)
    let header = parts.first ?? [], claims = parts.count > 1 ? parts[1] : []
    let names = parts.dropFirst(2).map { Array($0) }
    let token = FuzzSigner.token(header: header, payload: claims, key: .hs256)
    fuzzToken(token, names: names.isEmpty ? CABIFixture.claimNames : names)
}

/// Mode 3: a key document into a fresh keystore, for one issuer or for any.
func fuzzKeyDocument(_ doc: [UInt8]) {
    var ks: OpaquePointer?
    require(jwtk_keystore_new(&ks) == JWTK_OK && ks != nil, "jwtk_keystore_new failed")
    defer { jwtk_keystore_free(ks) }
    let issuer = Array("https://issuer.example".utf8)
    let forIssuer = doc.count % 2 == 1
    let status = doc.withUnsafeBytes { d in
        issuer.withUnsafeBytes { i in
            jwtk_keystore_load_jwks_ex(
                ks, forIssuer ? i.baseAddress?.assumingMemoryBound(to: CChar.self) : nil, forIssuer ? i.count : 0,
                d.baseAddress?.assumingMemoryBound(to: CChar.self), d.count, CABIFixture.ctx)
        }
    }
    requireKnown(status, "jwtk_keystore_load_jwks_ex")
    requireErrmsg(CABIFixture.ctx)
    // The C library loads what the core's loader accepts, and refuses what it refuses.
    let core = Result { () throws(KeyError) in try JWKSet(json: doc) }
    switch core {
    case .success(let set) where !set.keys.isEmpty:
        require(
            status == JWTK_OK, "the core loads \(set.keys.count) key(s), jwtk_keystore_load_jwks says \(name(status))")
    default:
        require(status != JWTK_OK || doc.isEmpty, "the core loads no key, jwtk_keystore_load_jwks says ok")
    }
    var v: OpaquePointer?
    let config = #"{"batch_threads":1}"#
    let rc = config.withCString { jwtk_verifier_new($0, config.utf8.count, ks, &v) }
    require(rc == JWTK_OK, "jwtk_verifier_new on a fresh keystore: \(name(rc))")
    defer { jwtk_verifier_free(v) }
    // The two HMAC fixture tokens, and one public-key token picked by the document's length:
    // verifying all of them would make public-key arithmetic most of each input's time.
    let publicKeyToken = 2 + doc.count % (CABIFixture.tokens.count - 2)
    for token in [CABIFixture.tokens[0], CABIFixture.tokens[1], CABIFixture.tokens[publicKeyToken]] {
        let s = verifyAndCheck(v, token, now: FuzzFixtures.now)
        if s == JWTK_OK, case .success(let set) = core {
            // Accepted only by a key the document held, that verifies it in the core too.
            let plain = token.withUnsafeBytes { JWTVerifier(keys: set, clock: FixedClock(FuzzFixtures.now)).check($0) }
            require(plain == nil, "jwtk accepted a fixture token the core refuses with the same keys: \(plain!)")
        }
    }
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzCABI", fuzzCABI) }
}
#endif
