import CBenchCrypto
import CBenchPeers
import Foundation
@_spi(Internals) import JWTKernel

/// The key store at scale (issue 8): issuer routing + key lookup + verification through one
/// MultiIssuerVerifier whose KeyStore holds 1 issuer / 2 keys ("small") or 10,000 issuers /
/// 100,000 keys ("large"), while another thread publishes a refresh of some issuer of each
/// store every millisecond. Target: large within 10 % of small in verifications per second.
/// Both stores get the same refresh load, both runners cycle through 1,024 distinct tokens of
/// the same size (large: random issuer and kid each), and their rounds are interleaved.
/// Also the memory one loaded RSA-2048 key costs (malloc'd bytes and RSS around loading
/// the large store's 100,000 keys from JWKS documents).
enum KeyStoreScale {
    struct Row {
        let alg: String
        let issuers: Int
        let keys: Int
        /// The tokens' issuers and keys: 1 / 2 (the same tokens on every store), or all of them.
        let tokenIssuers: Int
        let tokenKeys: Int
        let result: Measurement
    }

    struct Report {
        var rows: [Row] = []
        /// Publications per second the refresher reached while the rows were measured.
        var refreshesPerSecond = 0.0
        var rsaKeyMallocBytes: Double?
        var rsaKeyRSSBytes: Double?
        var rsaLoadSeconds: Double?
    }

    static let largeIssuers = 10_000
    static let keysPerIssuer = 10
    static let tokenCount = 1024
    static let aud = "scale-bench"
    static let now: Int64 = 1_750_000_000

    static func issuer(_ i: Int) -> String { "https://tenant-\(String(format: "%05d", i)).example" }

    /// One scenario: a store, its verifier, and each issuer's key set (republished by the refresher).
    final class Scenario: @unchecked Sendable {
        let store: KeyStore
        let verifier: MultiIssuerVerifier
        let sets: [JWKSet]
        // Safety: only the refresher thread touches `next`.
        var next = 0

        init(store: KeyStore, sets: [JWKSet]) {
            self.store = store
            self.sets = sets
            let policy = ClaimsPolicy(algorithms: AlgorithmSet([.hs256, .rs256]), audiences: [KeyStoreScale.aud])
            verifier = MultiIssuerVerifier(
                store: store,
                issuers: sets.indices.map { IssuerConfiguration(issuer: KeyStoreScale.issuer($0), policy: policy) },
                clock: FixedClock(KeyStoreScale.now))
        }

        /// Republishes the next issuer's keys: a new stripe snapshot, as a refresh makes.
        func refreshOne() {
            store.publish(sets[next], forIssuer: KeyStoreScale.issuer(next))
            next = (next + 1) % sets.count
        }

        /// Verifies `tokens` in turn (`tokenCount`, a power of two, of them).
        func runner(_ tokens: [String]) -> Runner {
            var bytes: [UInt8] = [], offsets = [0]
            for t in tokens {
                bytes += Array(t.utf8)
                offsets.append(bytes.count)
            }
            return { [self, bytes, offsets] n in
                bytes.withUnsafeBytes { all in
                    var ok = 0
                    for i in 0..<n {
                        let t = i & (KeyStoreScale.tokenCount - 1)
                        let token = UnsafeRawBufferPointer(rebasing: all[offsets[t]..<offsets[t + 1]])
                        if (try? verifier.verify(token) { $0.claimsJSON.count }) != nil { ok += 1 }
                    }
                    return ok
                }
            }
        }
    }

    // MARK: Keys and tokens

    /// An RSA-2048 private key made by OpenSSL, with its public JWK members.
    final class RSAKey: @unchecked Sendable {
        let pkey: OpaquePointer
        let n: String
        init() throws {
            guard let ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw BenchError("EVP_PKEY_CTX_new_id") }
            defer { EVP_PKEY_CTX_free(ctx) }
            var key: OpaquePointer?
            guard EVP_PKEY_keygen_init(ctx) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(ctx, 2048) == 1,
                EVP_PKEY_keygen(ctx, &key) == 1, let key
            else { throw BenchError("RSA key generation failed") }
            pkey = key
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, "n", &bn) == 1, let bn else { throw BenchError("no modulus") }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: 256)
            guard BN_bn2binpad(bn, &bytes, 256) == 256 else { throw BenchError("modulus is not 2048 bits") }
            n = Base64URL.encode(bytes)
        }
        deinit { EVP_PKEY_free(pkey) }

        func jwk(kid: String) -> String { #"{"kty":"RSA","kid":"\#(kid)","alg":"RS256","n":"\#(n)","e":"AQAB"}"# }

        func sign(_ input: String) throws -> [UInt8] {
            guard let md = EVP_MD_CTX_new() else { throw BenchError("EVP_MD_CTX_new") }
            defer { EVP_MD_CTX_free(md) }
            var sig = [UInt8](repeating: 0, count: 256), len = 256
            let ok = input.withCString { p in
                EVP_DigestSignInit(md, nil, EVP_sha256(), nil, pkey) == 1
                    && EVP_DigestSign(md, &sig, &len, p, input.utf8.count) == 1
            }
            guard ok, len == 256 else { throw BenchError("RS256 signing failed") }
            return sig
        }
    }

    /// The HS256 secret of key `j` of issuer `i`: distinct per key, 32 bytes.
    static func secret(_ i: Int, _ j: Int) -> [UInt8] {
        var s = [UInt8](repeating: 0, count: 32)
        var x = UInt64(i &* 131 &+ j &+ 1) &* 0x9E37_79B9_7F4A_7C15
        for k in 0..<32 {
            x ^= x >> 29
            x = x &* 0xBF58_476D_1CE4_E5B9
            s[k] = UInt8(truncatingIfNeeded: x >> 56)
        }
        return s
    }

    static func hs256JWK(_ i: Int, _ j: Int) -> String {
        #"{"kty":"oct","kid":"k\#(j)","alg":"HS256","k":"\#(Base64URL.encode(secret(i, j)))"}"#
    }

    /// A token of issuer `i` signed by its key `j`; `serial` makes each token distinct at the same length.
    static func token(alg: String, issuer i: Int, kid j: Int, serial: Int, rsa: [RSAKey]) throws -> String {
        let header = #"{"alg":"\#(alg)","kid":"k\#(j)","typ":"JWT"}"#
        let claims =
            #"{"iss":"\#(issuer(i))","sub":"user-\#(String(format: "%06d", serial))","aud":"\#(aud)","#
            + #""iat":\#(now - 60),"exp":\#(now + 3600)}"#
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        let signature: [UInt8]
        if alg == "HS256" {
            let key = secret(i, j)
            var mac = [UInt8](repeating: 0, count: 32)
            guard cb_hs256_sign(key, key.count, input, input.utf8.count, &mac) == 1 else {
                throw BenchError("HMAC failed")
            }
            signature = mac
        } else {
            signature = try rsa[(i * keysPerIssuer + j) % rsa.count].sign(input)
        }
        return input + "." + Base64URL.encode(signature)
    }

    /// Bytes malloc holds and the resident set, for the memory figure.
    static func memory() -> (malloc: Int, rss: Int) {
        let pages =
            (try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8))?
            .split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        return (cb_malloc_bytes_in_use(), pages * Int(sysconf(Int32(_SC_PAGESIZE))))
    }

    /// A store of `issuers` issuers with `keysPerIssuer` keys each (key j of issuer i: RSA
    /// pool key (i*keysPerIssuer + j) mod pool, parsed anew so each is its own EVP_PKEY).
    static func scenario(alg: String, issuers: Int, keysPerIssuer: Int, rsa: [RSAKey]) throws -> Scenario {
        let store = KeyStore()
        var sets: [JWKSet] = []
        sets.reserveCapacity(issuers)
        for i in 0..<issuers {
            let jwks = (0..<keysPerIssuer).map { j in
                alg == "HS256"
                    ? hs256JWK(i, j) : rsa[(i * KeyStoreScale.keysPerIssuer + j) % rsa.count].jwk(kid: "k\(j)")
            }
            let keys = try KeyStore.parse(Array(#"{"keys":[\#(jwks.joined(separator: ","))]}"#.utf8))
            guard keys.keys.count == keysPerIssuer else { throw BenchError("issuer \(i): \(keys.rejected)") }
            store.publish(keys, forIssuer: issuer(i))
            sets.append(keys)
        }
        return Scenario(store: store, sets: sets)
    }

    /// `tokenCount` tokens of issuers drawn from the first `issuers`, kids from the first `kids` of each
    /// (1 issuer: kids in turn).
    static func tokens(alg: String, issuers: Int, kids: Int, rsa: [RSAKey]) throws -> [String] {
        var rng = SystemRandomNumberGenerator()
        return try (0..<tokenCount).map { serial in
            let i = issuers == 1 ? 0 : Int.random(in: 0..<issuers, using: &rng)
            let j = issuers == 1 ? serial % kids : Int.random(in: 0..<kids, using: &rng)
            return try token(alg: alg, issuer: i, kid: j, serial: serial, rsa: rsa)
        }
    }

    // MARK: Run

    static func run(seconds: Double, rounds: Int, algs: [String]) throws -> Report {
        var report = Report()
        let rsa = algs.contains("RS256") ? try (0..<8).map { _ in try RSAKey() } : []
        var stores: [Scenario] = []
        var cells: [(alg: String, issuers: Int, keys: Int, tokenIssuers: Int, tokenKeys: Int, runner: Runner)] = []
        for alg in algs {
            let small = try scenario(alg: alg, issuers: 1, keysPerIssuer: 2, rsa: rsa)
            let before = memory()
            let started = monotonicSeconds()
            let large = try scenario(alg: alg, issuers: largeIssuers, keysPerIssuer: keysPerIssuer, rsa: rsa)
            if alg == "RS256" {
                let after = memory()
                let n = Double(largeIssuers * keysPerIssuer)
                report.rsaLoadSeconds = monotonicSeconds() - started
                // The tokens (1,024 strings) are counted too: a few hundred KB, under 1 % of the figure.
                report.rsaKeyMallocBytes = Double(after.malloc - before.malloc) / n
                report.rsaKeyRSSBytes = Double(after.rss - before.rss) / n
            }
            stores += [small, large]
            let hot = try tokens(alg: alg, issuers: 1, kids: 2, rsa: rsa)
            let spread = try tokens(alg: alg, issuers: largeIssuers, kids: keysPerIssuer, rsa: rsa)
            // The same tokens on both stores (the lookup's cost), then tokens spread over every issuer and key.
            cells.append((alg, 1, 2, 1, 2, small.runner(hot)))
            cells.append((alg, largeIssuers, largeIssuers * keysPerIssuer, 1, 2, large.runner(hot)))
            cells.append(
                (
                    alg, largeIssuers, largeIssuers * keysPerIssuer, largeIssuers, largeIssuers * keysPerIssuer,
                    large.runner(spread)
                ))
        }

        // The refresher: every millisecond, one publication in each store.
        let stop = AtomicCounter(), published = AtomicCounter()
        let all = stores
        let refresher = Thread {
            while stop.current == 0 {
                for s in all { s.refreshOne() }
                published.increment()
                usleep(1000)
            }
            stop.increment()
        }
        let timings = cells.map { Timing($0.runner) }
        refresher.start()
        let t0 = monotonicSeconds(), p0 = published.current
        for r in 0..<rounds {
            for t in timings { t.round(seconds: seconds / Double(rounds)) }
            FileHandle.standardError.write(Data("key store scale: round \(r + 1)/\(rounds) done\n".utf8))
        }
        report.refreshesPerSecond = Double(published.current - p0) / (monotonicSeconds() - t0)
        stop.increment()
        while stop.current < 2 { usleep(1000) }
        for (s, t) in zip(cells, timings) {
            report.rows.append(
                Row(
                    alg: s.alg, issuers: s.issuers, keys: s.keys, tokenIssuers: s.tokenIssuers, tokenKeys: s.tokenKeys,
                    result: t.result(countAllocs: cb_alloc_counting_works() != 0)))
        }
        return report
    }
}

// MARK: Output

extension KeyStoreScale {
    static func print(_ r: Report) {
        Swift.print(
            "key store scale (MultiIssuerVerifier, route + key lookup + verify, one thread; a refresh of some issuer "
                + "every ms beside it: \(fmt(r.refreshesPerSecond, 0)) publications/s per store):")
        Swift.print(
            pad("alg", 7) + pad("issuers", 9, right: true) + pad("keys", 9, right: true)
                + pad("tokens of", 20, right: true) + pad("ops/s", 12, right: true)
                + pad("spread", 8, right: true) + pad("allocs/op", 11, right: true)
                + pad("vs 1 issuer", 13, right: true))
        for row in r.rows {
            let base = (r.rows.first { $0.alg == row.alg && $0.issuers == 1 } ?? row).result.opsPerSecond
            Swift.print(
                pad(row.alg, 7) + pad(String(row.issuers), 9, right: true) + pad(String(row.keys), 9, right: true)
                    + pad("\(row.tokenIssuers) iss/\(row.tokenKeys) keys", 20, right: true)
                    + pad(fmt(row.result.opsPerSecond, 0), 12, right: true)
                    + pad(fmt(row.result.spread * 100, 0) + "%", 8, right: true)
                    + pad(row.result.allocsPerOp.map { fmt($0, 2) } ?? "-", 11, right: true)
                    + pad(fmt(row.result.opsPerSecond / base, 3) + "x", 13, right: true)
                    + (row.issuers > 1 && row.tokenIssuers == 1 && row.result.opsPerSecond < 0.9 * base
                        ? "   <- target >= 0.9x" : ""))
        }
        if let m = r.rsaKeyMallocBytes, let rss = r.rsaKeyRSSBytes, let s = r.rsaLoadSeconds {
            Swift.print(
                "memory per loaded RSA-2048 key: \(fmt(m, 0)) bytes malloc'd, \(fmt(rss, 0)) bytes RSS "
                    + "(100,000 keys from JWKS documents in \(fmt(s, 1)) s)")
        }
    }

    /// The `key_store_scale` member of bench/results.json.
    static func json(_ r: Report) -> String {
        let rows = r.rows.map { row in
            "    {\"alg\":\"\(row.alg)\",\"issuers\":\(row.issuers),\"keys\":\(row.keys),"
                + "\"token_issuers\":\(row.tokenIssuers),\"token_keys\":\(row.tokenKeys),"
                + "\"ops_per_s\":\(fmt(row.result.opsPerSecond, 1)),\"spread\":\(fmt(row.result.spread, 4)),"
                + "\"allocs_per_op\":\(row.result.allocsPerOp.map { fmt($0, 2) } ?? "null")}"
        }
        func num(_ x: Double?, _ d: Int) -> String { x.map { fmt($0, d) } ?? "null" }
        return "{\"refreshes_per_s\":\(fmt(r.refreshesPerSecond, 1)),"
            + "\"rsa2048_key_malloc_bytes\":\(num(r.rsaKeyMallocBytes, 0)),"
            + "\"rsa2048_key_rss_bytes\":\(num(r.rsaKeyRSSBytes, 0)),\"rows\":[\n"
            + rows.joined(separator: ",\n") + "\n]}"
    }

    /// `jwtk-compare key-store-scale [--seconds S] [--rounds N] [--algs HS256,RS256]`: this benchmark alone.
    static func main(_ args: [String]) throws {
        var seconds = 5.0, rounds = 5, algs = ["HS256", "RS256"]
        var it = args.makeIterator()
        while let a = it.next() {
            switch a {
            case "--seconds": seconds = Double(it.next() ?? "") ?? seconds
            case "--rounds": rounds = Int(it.next() ?? "") ?? rounds
            case "--algs": algs = (it.next() ?? "").split(separator: ",").map(String.init)
            default: throw BenchError("unknown argument \(a)")
            }
        }
        print(try run(seconds: seconds, rounds: rounds, algs: algs))
    }
}
