import CFuzzCrypto
import Foundation
@_spi(Internals) import JWTKernel

// MARK: - Invariant failures

/// Fails the run (libFuzzer reports a deadly signal and saves the input) when an invariant breaks.
@inline(__always)
public func require(
    _ condition: Bool, _ message: @autoclosure () -> String,
    file: StaticString = #fileID, line: UInt = #line
) {
    if !condition { invariantFailed(message(), file: file, line: line) }
}

public func invariantFailed(_ message: String, file: StaticString = #fileID, line: UInt = #line) -> Never {
    FileHandle.standardError.write(Data("INVARIANT VIOLATED (\(file):\(line)): \(message)\n".utf8))
    fatalError("invariant violated: \(message)", file: file, line: line)
}

// MARK: - Replay runner (the non-FUZZING @main of every harness)

public enum FuzzReplay {
    /// Runs every file named on the command line (directories: every file inside, sorted)
    /// through `entry`, as libFuzzer would. Exit status 0 when all ran.
    public static func run(_ name: String, _ entry: (UnsafePointer<UInt8>?, Int) -> CInt) -> Never {
        let args = CommandLine.arguments.dropFirst()
        if args.isEmpty {
            FileHandle.standardError.write(
                Data("usage: \(name) FILE|DIR...  (replays inputs through the harness)\n".utf8))
            exit(2)
        }
        var files: [String] = []
        let fm = FileManager.default
        for arg in args {
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: arg, isDirectory: &isDir) else {
                FileHandle.standardError.write(Data("\(name): no such file \(arg)\n".utf8))
                exit(2)
            }
            if isDir.boolValue {
                let names = (try? fm.contentsOfDirectory(atPath: arg)) ?? []
                for n in names.sorted() {
                    var sub: ObjCBool = false
                    let path = arg + "/" + n
                    if fm.fileExists(atPath: path, isDirectory: &sub), !sub.boolValue { files.append(path) }
                }
            } else {
                files.append(arg)
            }
        }
        for path in files {
            guard let data = fm.contents(atPath: path) else {
                FileHandle.standardError.write(Data("\(name): cannot read \(path)\n".utf8))
                exit(2)
            }
            let bytes = [UInt8](data)
            _ = bytes.withUnsafeBufferPointer { entry($0.baseAddress, $0.count) }
        }
        print("\(name): replayed \(files.count) input(s), no invariant violated")
        exit(0)
    }
}

// MARK: - Fixtures as library objects

public enum FuzzKeys {
    /// The RSA key FuzzSigner signs RS256/PS256 with ("rsf", no alg).
    public static let rsaSigner: VerificationKey = {
        do { return try VerificationKey(pem: FuzzRSAFixture.publicKeyPEM, kid: "rsf") } catch {
            fatalError("FuzzRSAFixture public key does not load: \(error)")
        }
    }()

    /// `all` plus "rsf": the key set of the verify harnesses.
    public static let withRSASigner: JWKSet = all.merging(JWKSet(keys: [rsaSigner]))

    /// HS256 "hs", oct "hs-any", RS256 "rs", ES256 "es", Ed25519 "ed", ES384 "es384", P-521 "es512".
    public static let all: JWKSet = {
        do {
            let hmac = try JWKSet(json: Array(FuzzFixtures.hmacJWKS.utf8))
            let pub = try JWKSet(json: Array(FuzzFixtures.publicJWKS.utf8))
            precondition(
                hmac.rejected.isEmpty && pub.rejected.isEmpty, "fixture keys refused: \(hmac.rejected + pub.rejected)")
            precondition(hmac.keys.count == 2 && pub.keys.count == 5)
            return hmac.merging(pub)
        } catch {
            fatalError("fixture JWKS does not load: \(error)")
        }
    }()
}

// MARK: - Signing (test keys only)

/// Signs with the fixture private keys through OpenSSL, so a harness can turn fuzzed
/// header/claims JSON into correctly signed tokens and reach the claims checks.
public enum FuzzSigner {
    /// Signing keys; each harness lists the ones its selector byte picks from.
    /// RS256/PS256 sign with FuzzRSAFixture ("rsf").
    public enum Key: CaseIterable, Sendable { case hs256, es256, ed25519, es384, es512, rs256, ps256 }

    nonisolated(unsafe) private static let ecKey: OpaquePointer = loadPEM(FuzzFixtures.ecPrivateKeyPEM)
    nonisolated(unsafe) private static let ec384Key: OpaquePointer = loadPEM(FuzzFixtures.ec384PrivateKeyPEM)
    nonisolated(unsafe) private static let ec521Key: OpaquePointer = loadPEM(FuzzFixtures.ec521PrivateKeyPEM)
    nonisolated(unsafe) private static let edKey: OpaquePointer = loadPEM(FuzzFixtures.ed25519PrivateKeyPEM)
    nonisolated(unsafe) private static let rsaKey: OpaquePointer = loadPEM(FuzzRSAFixture.privateKeyPEM)

    private static func loadPEM(_ pem: String) -> OpaquePointer {
        let bytes = Array(pem.utf8)
        return bytes.withUnsafeBytes { raw in
            let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count))!
            defer { BIO_free(bio) }
            guard let pkey = PEM_read_bio_PrivateKey(bio, nil, nil, nil) else {
                fatalError("fixture private key does not parse")
            }
            return pkey
        }
    }

    /// The JOSE signature of `input` (raw r||s for ES256).
    public static func sign(_ key: Key, _ input: UnsafeRawBufferPointer) -> [UInt8] {
        switch key {
        case .hs256:
            var out = [UInt8](repeating: 0, count: 64)
            var len: UInt32 = 0
            let secret = FuzzFixtures.hs256Secret
            _ = HMAC(
                EVP_sha256(), secret, Int32(secret.count),
                input.baseAddress?.assumingMemoryBound(to: UInt8.self), input.count, &out, &len)
            return Array(out.prefix(Int(len)))
        case .es256: return ecdsa(ecKey, EVP_sha256(), 32, input)
        case .es384: return ecdsa(ec384Key, EVP_sha384(), 48, input)
        case .es512: return ecdsa(ec521Key, EVP_sha512(), 66, input)
        case .ed25519:
            return digestSign(edKey, nil, input)
        case .rs256: return digestSign(rsaKey, EVP_sha256(), input)
        case .ps256: return digestSign(rsaKey, EVP_sha256(), input, pss: true)
        }
    }

    /// JOSE ECDSA: raw r || s, each `half` bytes.
    private static func ecdsa(
        _ key: OpaquePointer, _ md: OpaquePointer?, _ half: Int32, _ input: UnsafeRawBufferPointer
    ) -> [UInt8] {
        let der = digestSign(key, md, input)
        return der.withUnsafeBufferPointer { buf -> [UInt8] in
            var p: UnsafePointer<UInt8>? = buf.baseAddress
            guard let sig = d2i_ECDSA_SIG(nil, &p, buf.count) else { fatalError("ECDSA DER") }
            defer { ECDSA_SIG_free(sig) }
            var r: OpaquePointer?, s: OpaquePointer?
            ECDSA_SIG_get0(sig, &r, &s)
            var raw = [UInt8](repeating: 0, count: Int(2 * half))
            raw.withUnsafeMutableBufferPointer { o in
                _ = BN_bn2binpad(r, o.baseAddress, half)
                _ = BN_bn2binpad(s, o.baseAddress! + Int(half), half)
            }
            return raw
        }
    }

    private static func digestSign(
        _ pkey: OpaquePointer, _ md: OpaquePointer?, _ input: UnsafeRawBufferPointer,
        pss: Bool = false
    ) -> [UInt8] {
        let ctx = EVP_MD_CTX_new()!
        defer { EVP_MD_CTX_free(ctx) }
        var pctx: OpaquePointer?
        guard EVP_DigestSignInit(ctx, &pctx, md, nil, pkey) == 1 else { fatalError("EVP_DigestSignInit") }
        // RFC 7518 §3.5: PS256 is RSASSA-PSS with MGF1-SHA-256 and a salt as long as the hash.
        if pss {
            guard EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1,
                EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1
            else { fatalError("PSS parameters") }
        }
        var len = 0
        let data = input.baseAddress?.assumingMemoryBound(to: UInt8.self)
        guard EVP_DigestSign(ctx, nil, &len, data, input.count) == 1 else { fatalError("EVP_DigestSign size") }
        var out = [UInt8](repeating: 0, count: len)
        guard EVP_DigestSign(ctx, &out, &len, data, input.count) == 1 else { fatalError("EVP_DigestSign") }
        return Array(out.prefix(len))
    }

    /// `b64(header).b64(payload).b64(sig)` signed with `key`. Inlinable, so the copy of a
    /// harness's input slices is specialised (a generic copy element by element cost more
    /// than the verification it feeds).
    @inlinable
    public static func token(header: some Collection<UInt8>, payload: some Collection<UInt8>, key: Key) -> [UInt8] {
        let h = Array(header), p = Array(payload)
        return h.withUnsafeBytes { hb in p.withUnsafeBytes { pb in token(rawHeader: hb, rawPayload: pb, key: key) } }
    }

    public static func token(rawHeader: UnsafeRawBufferPointer, rawPayload: UnsafeRawBufferPointer, key: Key) -> [UInt8]
    {
        var token: [UInt8] = []
        token.reserveCapacity((rawHeader.count + rawPayload.count) * 4 / 3 + 180)
        ReferenceBase64URL.encode(rawHeader, into: &token)
        token.append(UInt8(ascii: "."))
        ReferenceBase64URL.encode(rawPayload, into: &token)
        let sig = token.withUnsafeBytes { sign(key, $0) }
        token.append(UInt8(ascii: "."))
        sig.withUnsafeBytes { ReferenceBase64URL.encode($0, into: &token) }
        return token
    }
}

// MARK: - Comparing results

extension VerifiedJWT {
    /// Field-by-field equality (VerifiedJWT is not Equatable; the key must be the same object).
    public func isIdentical(to o: VerifiedJWT) -> Bool {
        algorithm == o.algorithm && kid == o.kid && key === o.key && header == o.header
            && claimsJSON == o.claimsJSON && issuer == o.issuer && subject == o.subject
            && audiences == o.audiences && expiresAt == o.expiresAt && notBefore == o.notBefore
            && issuedAt == o.issuedAt && nonce == o.nonce && authorizedParty == o.authorizedParty
    }
}

public func describe(_ r: Result<VerifiedJWT, JWTError>) -> String {
    switch r {
    case .success(let v): "accepted \(v.algorithm.rawValue) kid=\(v.kid ?? "-")"
    case .failure(let e): "rejected \(e)"
    }
}

/// Same outcome: both accepted with identical results, or both rejected with equal errors.
public func sameOutcome(_ a: Result<VerifiedJWT, JWTError>, _ b: Result<VerifiedJWT, JWTError>) -> Bool {
    switch (a, b) {
    case (.success(let x), .success(let y)): x.isIdentical(to: y)
    case (.failure(let x), .failure(let y)): x == y
    default: false
    }
}
