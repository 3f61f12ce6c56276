// FuzzKeyStore: the key store under concurrent refresh. The input is a script of operations on an
// empty `KeyStore` and a `MultiIssuerVerifier` over it (register, publish a prepared HMAC key set or
// one parsed from the input, withdraw, remove, mark stale, verify tokens signed by prepared keys).
// Operations with the high bit set run on a second thread (`ConcurrentWriter.swift`) at the same time,
// on issuers of their own, in the same stripes (the store has 1, 2 or 16 stripes).
//
// Invariants, checked after every step by the thread that owns the issuer (so they are exact):
// - a token verifies, and fails with the same code, exactly as a plain `JWTVerifier` holding that
//   issuer's currently published set would say (keys_unavailable when none is published): keys a
//   publish removed never verify after it returned, a new key verifies at once;
// - the store reports the published set (the same key objects), the stale flag and the registered
//   issuers the script implies; a stale issuer's accepted token counts as served stale;
// - a token of the other thread's issuers verifies only with a key that thread may publish, and
//   otherwise fails only as unknown_kid or keys_unavailable; a token of an unconfigured issuer is
//   unknown_issuer. A shared verified-token cache (on some inputs) never changes an outcome.
// HMAC keys only, so the harness is fast; parsed sets take any key type.
import FuzzSupport
@_spi(Internals) import JWTKernel

/// The three issuers the fuzzing thread owns, the two the concurrent writer owns, and one nobody configured.
let mainIssuers = ["https://m0.example", "https://m1.example", "https://m2.example"]
let writerIssuers = ["https://c0.example", "https://c1.example"]
let allIssuers = mainIssuers + writerIssuers + ["https://unconfigured.example"]

/// What the script says an issuer's entry holds.
enum IssuerModel {
    case unregistered
    case registered(keys: JWKSet?, stale: Bool)

    var keys: JWKSet? { if case .registered(let k, _) = self { k } else { nil } }
}

/// Reads the script: one op byte, one argument byte, and for a parsed set a length and the document.
struct Script {
    let bytes: UnsafeRawBufferPointer
    var at = 0
    mutating func next() -> UInt8? {
        guard at < bytes.count else { return nil }
        defer { at += 1 }
        return bytes[at]
    }
    mutating func take(_ n: Int) -> UnsafeRawBufferPointer {
        let n = min(n, bytes.count - at)
        defer { at += n }
        return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)])
    }
}

let writer = ConcurrentWriter()
let maxOps = 48

/// One store per stripe count, emptied before each input (removing every issuer leaves a store
/// as new: entries, counters and listeners go with the issuer). The verifier is made per input:
/// one kept for the process's life would be reported by LeakSanitizer at exit (each route holds
/// its issuer's `IssuerID` only inside the multi-payload enum `KeyResolution`, whose spare pointer
/// bits LSan cannot follow; the same class as the HMAC-secret report fixed in 596acae).
let pool: [KeyStore] = [1, 2, 16].map { KeyStore(stripes: $0) }

func makeVerifier(_ store: KeyStore, cache: VerifiedTokenCache?) -> MultiIssuerVerifier {
    MultiIssuerVerifier(
        store: store, issuers: (mainIssuers + writerIssuers).map { IssuerConfiguration(issuer: $0) },
        clock: FixedClock(FuzzFixtures.now), cache: cache)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzKeyStore(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard size >= 1, let data else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let flags = input[0]
    let store = pool[[0, 1, 2, 0][Int(flags & 3)]]
    for issuer in store.issuers { store.remove(issuer: issuer) }
    let cache = flags & 0x0c == 0x0c ? VerifiedTokenCache(.init(capacity: 64, maxTokenSize: 4096, shards: 2)) : nil
    let verifier = makeVerifier(store, cache: cache)

    // The writer's ops (high bit) go to the other thread; the rest run here, at the same time.
    var mainOps: [UInt8] = []
    var writerOps: [UInt8] = []
    var script = Script(bytes: UnsafeRawBufferPointer(rebasing: input[1...]))
    // At most `maxOps` per thread: longer scripts reach no new state, only make each input slow.
    while let op = script.next(), mainOps.count + writerOps.count < 4 * maxOps {
        let arg = script.next() ?? 0
        if op & 0x80 != 0 {
            writerOps += [op, arg]
        } else {
            mainOps += [op, arg]
            if op % 8 == 6 {  // a parsed set: keep its length and bytes with the op
                let doc = script.take(Int(script.next() ?? 0))
                mainOps += [UInt8(doc.count)] + Array(doc)
            }
        }
    }
    let repeats = 1 + Int(flags >> 4 & 3)
    if !writerOps.isEmpty { writer.start(store: store, verifier: verifier, ops: writerOps, repeats: repeats) }

    var models = [IssuerModel](repeating: .unregistered, count: mainIssuers.count)
    mainOps.withUnsafeBytes { raw in
        var ops = Script(bytes: raw)
        while let op = ops.next() {
            let arg = ops.next() ?? 0
            let i = Int(arg) % mainIssuers.count
            let issuer = mainIssuers[i]
            switch op % 8 {
            case 0:  // publish a prepared set
                let set = PreparedKeys.sets[Int(arg >> 2) % PreparedKeys.sets.count]
                let stale = arg & 0x40 != 0
                store.publish(set, forIssuer: issuer, stale: stale)
                models[i] = .registered(keys: set, stale: stale)
            case 1:
                store.withdrawKeys(forIssuer: issuer)
                if case .registered = models[i] { models[i] = .registered(keys: nil, stale: false) }
            case 2:
                store.remove(issuer: issuer)
                models[i] = .unregistered
            case 3:
                let stale = arg & 0x40 != 0
                store.setStale(stale, forIssuer: issuer)
                if case .registered(let keys, _) = models[i] { models[i] = .registered(keys: keys, stale: stale) }
            case 4:
                store.register(issuer: issuer)
                if case .unregistered = models[i] { models[i] = .registered(keys: nil, stale: false) }
            case 5:  // verify one token, of any issuer
                let t = Int(arg >> 3) % allIssuers.count
                let key = Int(arg) % PreparedKeys.keyCount
                if t < mainIssuers.count {
                    checkOwned(verifier, store, issuer: t, key: key, model: models[t])
                } else {
                    checkForeign(verifier, issuer: t, key: key)
                }
            case 6:  // publish a set parsed from the input
                let doc = ops.take(Int(ops.next() ?? 0))
                if let set = try? JWKSet(json: doc) {
                    store.publish(set, forIssuer: issuer)
                    models[i] = .registered(keys: set, stale: false)
                }
            default:  // every prepared token of one issuer
                for key in 0..<PreparedKeys.keyCount {
                    checkOwned(verifier, store, issuer: i, key: key, model: models[i])
                }
            }
            checkEntry(store, issuer: i, model: models[i])
        }
    }

    if !writerOps.isEmpty {
        let writerModels = writer.join()
        // Both threads done: every issuer's entry is exactly what its owner's script left.
        let expected =
            zip(mainIssuers, models).filter { if case .unregistered = $0.1 { false } else { true } }.map(\.0)
            + zip(writerIssuers, writerModels).filter { if case .unregistered = $0.1 { false } else { true } }.map(\.0)
        require(Set(store.issuers) == Set(expected), "registered issuers \(store.issuers), expected \(expected)")
        for (i, model) in writerModels.enumerated() {
            checkEntry(store, issuer: writerIssuers[i], model: model)
        }
    } else {
        let expected = zip(mainIssuers, models).filter { if case .unregistered = $0.1 { false } else { true } }
        require(Set(store.issuers) == Set(expected.map(\.0)), "registered issuers \(store.issuers)")
    }
    for i in mainIssuers.indices { checkEntry(store, issuer: i, model: models[i]) }
    return 0
}

/// A token of an issuer this thread owns: exactly what a plain verifier with the published set says.
func checkOwned(_ verifier: MultiIssuerVerifier, _ store: KeyStore, issuer: Int, key: Int, model: IssuerModel) {
    let token = PreparedKeys.tokens[issuer][key]
    let servedBefore = store.entry(forIssuer: allIssuers[issuer])?.hooks.staleServed.current
    let got = token.withUnsafeBytes { verifier.check($0) }?.code
    let want = expectedCode(issuer: issuer, key: key, keys: model.keys)
    require(
        got == want,
        "\(allIssuers[issuer]) token by key \(key): \(got?.name ?? "ok"), expected \(want?.name ?? "ok") (\(model))")
    // `staleServed` counts key lookups (IssuerKeys, KeySourceStats): a verified-token cache hit
    // looks no key up, so the count is only exact without the cache.
    if got == nil, verifier.verifier(forIssuer: allIssuers[issuer])?.cache == nil,
        case .registered(_, stale: true) = model, let servedBefore
    {
        let after = store.entry(forIssuer: allIssuers[issuer])?.hooks.staleServed.current ?? 0
        require(after > servedBefore, "a token verified with stale keys was not counted as served stale")
    }
}

/// A token of the other thread's issuers (or an unconfigured one), whose keys change under us.
func checkForeign(_ verifier: MultiIssuerVerifier, issuer: Int, key: Int) {
    let got = PreparedKeys.tokens[issuer][key].withUnsafeBytes { verifier.check($0) }?.code
    if issuer >= mainIssuers.count + writerIssuers.count {
        require(got == .unknownIssuer, "a token of an unconfigured issuer: \(got?.name ?? "ok")")
    } else if got == nil {
        require(
            ConcurrentWriter.publishedSets.contains { PreparedKeys.setOf(key: key) == $0 },
            "\(allIssuers[issuer]) accepted key \(key), which its writer never publishes")
    } else {
        require(
            got == .unknownKid || got == .keysUnavailable, "\(allIssuers[issuer]) token failed with \(got!.name)")
    }
}

/// The verdict of a plain `JWTVerifier` holding `keys` (keys_unavailable without keys).
func expectedCode(issuer: Int, key: Int, keys: JWKSet?) -> JWTErrorCode? {
    guard let keys else { return .keysUnavailable }
    if let set = PreparedKeys.sets.firstIndex(where: { $0.keys.elementsEqual(keys.keys, by: ===) }) {
        return PreparedKeys.expected[set][issuer][key]
    }
    return PreparedKeys.tokens[issuer][key].withUnsafeBytes {
        PreparedKeys.referenceVerifier(keys, issuer: issuer).check($0)
    }?.code
}

/// The store's entry for an issuer matches the script.
func checkEntry(_ store: KeyStore, issuer i: Int, model: IssuerModel) {
    checkEntry(store, issuer: mainIssuers[i], model: model)
}

func checkEntry(_ store: KeyStore, issuer: String, model: IssuerModel) {
    let entry = store.entry(forIssuer: issuer)
    switch model {
    case .unregistered:
        require(entry == nil, "\(issuer) was removed or never registered, but the store has an entry")
    case .registered(let keys, let stale):
        guard let entry else { invariantFailed("\(issuer) is registered, but the store has no entry") }
        require(entry.isStale == stale, "\(issuer): stale \(entry.isStale), expected \(stale)")
        switch (entry.keys, keys) {
        case (nil, nil): break
        case (let got?, let want?):
            require(got.keys.elementsEqual(want.keys, by: ===), "\(issuer): the store holds other keys than published")
        default:
            invariantFailed("\(issuer): keys \(entry.keys == nil ? "absent" : "present"), expected the opposite")
        }
    }
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzKeyStore", fuzzKeyStore) }
}
#endif
