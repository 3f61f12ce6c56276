import CBenchCrypto
import Foundation
@_spi(Internals) import JWTKernel

/// `jwtk-compare jwe [--seconds S]`: the cost of a nested token (a JWS inside a JWE) through jwt-kernel's
/// `JWTVerifier.checkNested` (decrypt, then the whole signed pipeline and policy) against OpenSSL's floor for the
/// same primitives: the key management (nothing for `dir`, AES-256 key unwrap, RSA-OAEP-256 on a context prepared
/// once, ECDH P-256 with the token's ephemeral key built and checked plus one SHA-256 round of the Concat KDF),
/// AES-256-GCM over the ciphertext, then SHA-256 and ECDSA P-256 of the inner JWS on a verify context prepared
/// once. The floor parses nothing: every segment is decoded before timing. Tokens and keys:
/// Benchmarks/Fixtures/jwe.json (jwcrypto's). Rounds of the two sides alternate; ops/s is the median of the
/// rounds' thread CPU time rates.
enum JWECost {
    static func main(_ args: [String]) throws {
        var seconds = 1.0
        var it = args.makeIterator()
        while let arg = it.next() {
            switch arg {
            case "--seconds": seconds = Double(it.next() ?? "") ?? seconds
            default: fatalError("jwe: unknown argument \(arg) (--seconds S)")
            }
        }
        let dir = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appending(path: "Fixtures/jwe.json")
        let doc = try JSONSerialization.jsonObject(with: Data(contentsOf: dir)) as! [String: Any]
        func bytes(_ o: Any?) throws -> [UInt8] { Array(try JSONSerialization.data(withJSONObject: o!)) }
        let verifier = JWTVerifier(
            keys: try JWKSet(json: try bytes(doc["verification_jwks"])),
            policy: ClaimsPolicy(issuers: [doc["iss"] as! String], audiences: [doc["aud"] as! String]),
            clock: FixedClock(Int64(doc["now"] as! Int)))
        let decryptor = JWEDecryptor(keys: try DecryptionKeySet(document: try bytes(doc["decryption_jwks"])))
        let signingPEM = doc["signing_public_pem"] as! String

        print("JWE nested (A256GCM, inner ES256): jwt-kernel checkNested vs OpenSSL floor, \(seconds) s per side")
        print("case                      jwt-kernel ops/s   openssl-floor ops/s   kernel/floor")
        for c in doc["cases"] as! [[String: Any]] {
            let token = Array((c["token"] as! String).utf8)
            let kernelOK = token.withUnsafeBytes { verifier.checkNested($0, decryptor: decryptor) == nil }
            guard kernelOK else { throw BenchError("jwt-kernel refuses the \(c["name"]!) token") }
            let floor = try Floor(case: c, token: c["token"] as! String, signingPEM: signingPEM)
            guard floor.run() else { throw BenchError("the floor refuses the \(c["name"]!) token") }
            var tampered = token
            tampered[tampered.count - 3] = tampered[tampered.count - 3] == UInt8(ascii: "A") ? 66 : 65
            guard tampered.withUnsafeBytes({ verifier.checkNested($0, decryptor: decryptor) }) != nil else {
                throw BenchError("jwt-kernel accepts a tampered \(c["name"]!) token")
            }
            var kernelRates: [Double] = [], floorRates: [Double] = []
            for _ in 0..<5 {
                kernelRates.append(
                    rate(seconds / 5) {
                        token.withUnsafeBytes { verifier.checkNested($0, decryptor: decryptor) == nil }
                    })
                floorRates.append(rate(seconds / 5) { floor.run() })
            }
            let k = median(kernelRates), f = median(floorRates)
            let name = (c["name"] as! String).padding(toLength: 26, withPad: " ", startingAt: 0)
            print("\(name)\(String(format: "%16.0f   %19.0f   %11.2fx", k, f, k / f))")
        }
    }

    /// Calls per second of this thread's CPU time, over about `seconds`.
    static func rate(_ seconds: Double, _ op: () -> Bool) -> Double {
        let start = cpu()
        var n = 0, ok = 0
        while cpu() - start < seconds {
            for _ in 0..<16 { ok += op() ? 1 : 0 }
            n += 16
        }
        precondition(ok == n, "a verification failed while timed")
        return Double(n) / (cpu() - start)
    }

    static func cpu() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    static func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

    /// The least OpenSSL work for one nested token, everything token-independent and every decode done once.
    final class Floor {
        let kind: String
        var secret: [UInt8] = []
        var privateKey: OpaquePointer?
        var managementCtx: OpaquePointer?  // RSA-OAEP decrypt or ECDH derive, prepared once
        let gcm = EVP_CIPHER_CTX_new()!
        let wrap = EVP_CIPHER_CTX_new()!
        let gcm256 = EVP_CIPHER_fetch(nil, "AES-256-GCM", nil)!
        let wrap256 = EVP_CIPHER_fetch(nil, "AES-256-WRAP", nil)!
        let sha256 = EVP_MD_fetch(nil, "SHA256", nil)!
        let verifyCtx: OpaquePointer
        var otherInfo: [UInt8] = []
        /// ECDH-ES: the ephemeral public point, decoded once; the key is built and checked per token (it comes
        /// from the token: a recipient must check every one, as jwt-kernel does).
        var peerPoint: [UInt8] = []
        let aad: [UInt8], encryptedKey: [UInt8], iv: [UInt8], ciphertext: [UInt8], tag: [UInt8]
        var signingInput: [UInt8] = [], derSignature: [UInt8] = []
        var plaintext: [UInt8]

        init(case c: [String: Any], token: String, signingPEM: String) throws {
            kind = c["alg"] as! String
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            aad = Array(parts[0].utf8)
            encryptedKey = Base64URL.decode(parts[1])!
            iv = Base64URL.decode(parts[2])!
            ciphertext = Base64URL.decode(parts[3])!
            tag = Base64URL.decode(parts[4])!
            plaintext = [UInt8](repeating: 0, count: ciphertext.count + 16)
            if let s = c["secret_b64u"] as? String { secret = Base64URL.decode(s)! }
            if let pem = c["private_pem"] as? String { privateKey = try Self.pem(pem, isPrivate: true) }
            let signer = try Self.pem(signingPEM, isPrivate: false)
            verifyCtx = EVP_PKEY_CTX_new_from_pkey(nil, signer, nil)!
            guard EVP_PKEY_verify_init(verifyCtx) == 1, EVP_PKEY_CTX_set_signature_md(verifyCtx, sha256) == 1 else {
                throw BenchError("verify context")
            }
            switch kind {
            case "RSA-OAEP-256":
                managementCtx = EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil)
                guard EVP_PKEY_decrypt_init(managementCtx) == 1,
                    EVP_PKEY_CTX_set_rsa_padding(managementCtx, RSA_PKCS1_OAEP_PADDING) == 1,
                    EVP_PKEY_CTX_set_rsa_oaep_md(managementCtx, sha256) == 1,
                    EVP_PKEY_CTX_set_rsa_mgf1_md(managementCtx, sha256) == 1
                else { throw BenchError("OAEP context") }
            case "ECDH-ES":
                let header = try JSONSerialization.jsonObject(with: Data(Base64URL.decode(parts[0])!)) as! [String: Any]
                let epk = header["epk"] as! [String: String]
                let point = [4] + Base64URL.decode(epk["x"]!)! + Base64URL.decode(epk["y"]!)!
                peerPoint = point
                managementCtx = EVP_PKEY_CTX_new_from_pkey(nil, privateKey, nil)
                func field(_ b: [UInt8]) -> [UInt8] { withUnsafeBytes(of: UInt32(b.count).bigEndian, Array.init) + b }
                otherInfo =
                    field(Array("A256GCM".utf8)) + field([]) + field([])
                    + withUnsafeBytes(of: UInt32(256).bigEndian, Array.init)
            default: break
            }
            // The inner JWS, found once by decrypting untimed.
            guard let inner = decryptContent(contentKey()) else { throw BenchError("floor cannot decrypt") }
            let jws = String(decoding: inner, as: UTF8.self).split(separator: ".").map(String.init)
            signingInput = Array((jws[0] + "." + jws[1]).utf8)
            derSignature = Self.der(Base64URL.decode(jws[2])!)
        }

        func contentKey() -> [UInt8]? {
            switch kind {
            case "dir": return secret
            case "A256KW":
                var out = [UInt8](repeating: 0, count: encryptedKey.count)
                var n: Int32 = 0, tail: Int32 = 0
                let ok = out.withUnsafeMutableBufferPointer { o in
                    EVP_DecryptInit_ex2(wrap, wrap256, secret, nil, nil) == 1
                        && EVP_DecryptUpdate(wrap, o.baseAddress, &n, encryptedKey, Int32(encryptedKey.count)) == 1
                        && EVP_DecryptFinal_ex(wrap, o.baseAddress! + Int(n), &tail) == 1
                }
                guard ok else { return nil }
                return Array(out[0..<Int(n + tail)])
            case "RSA-OAEP-256":
                var out = [UInt8](repeating: 0, count: 512)
                var length = out.count
                guard EVP_PKEY_decrypt(managementCtx, &out, &length, encryptedKey, encryptedKey.count) == 1 else {
                    return nil
                }
                return Array(out[0..<length])
            default:  // ECDH-ES: the peer key built and checked, Z, then one SHA-256 round of the Concat KDF
                guard let peer = try? Self.ecPublic(peerPoint) else { return nil }
                defer { EVP_PKEY_free(peer) }
                var z = [UInt8](repeating: 0, count: 32)
                var length = z.count
                guard EVP_PKEY_derive_init(managementCtx) == 1,
                    EVP_PKEY_derive_set_peer_ex(managementCtx, peer, 1) == 1,
                    EVP_PKEY_derive(managementCtx, &z, &length) == 1
                else { return nil }
                var key = [UInt8](repeating: 0, count: 32)
                let input = [0, 0, 0, 1] + z + otherInfo
                guard EVP_Digest(input, input.count, &key, nil, sha256, nil) == 1 else { return nil }
                return key
            }
        }

        func decryptContent(_ key: [UInt8]?) -> [UInt8]? {
            guard let key else { return nil }
            var n: Int32 = 0, tail: Int32 = 0
            var tagCopy = tag
            let (gcm, gcm256, aad, iv, ciphertext) = (gcm, gcm256, aad, iv, ciphertext)
            let ok = plaintext.withUnsafeMutableBufferPointer { o in
                EVP_DecryptInit_ex2(gcm, gcm256, key, iv, nil) == 1
                    && EVP_DecryptUpdate(gcm, nil, &n, aad, Int32(aad.count)) == 1
                    && EVP_DecryptUpdate(gcm, o.baseAddress, &n, ciphertext, Int32(ciphertext.count)) == 1
                    && EVP_CIPHER_CTX_ctrl(gcm, EVP_CTRL_GCM_SET_TAG, 16, &tagCopy) == 1
                    && EVP_DecryptFinal_ex(gcm, o.baseAddress! + Int(n), &tail) == 1
            }
            guard ok else { return nil }
            return Array(plaintext[0..<Int(n + tail)])
        }

        /// One nested token's primitives: key management, AES-GCM, SHA-256 and ECDSA of the inner JWS.
        func run() -> Bool {
            guard decryptContent(contentKey()) != nil else { return false }
            var digest = [UInt8](repeating: 0, count: 32)
            guard EVP_Digest(signingInput, signingInput.count, &digest, nil, sha256, nil) == 1 else { return false }
            return EVP_PKEY_verify(verifyCtx, derSignature, derSignature.count, digest, 32) == 1
        }

        static func pem(_ text: String, isPrivate: Bool) throws -> OpaquePointer {
            // The BIO reads the caller's bytes in place: they must outlive it.
            let key = text.withCString { p -> OpaquePointer? in
                let bio = BIO_new_mem_buf(p, Int32(strlen(p)))
                defer { BIO_free(bio) }
                return isPrivate ? PEM_read_bio_PrivateKey(bio, nil, nil, nil) : PEM_read_bio_PUBKEY(bio, nil, nil, nil)
            }
            guard let key else { throw BenchError("PEM key") }
            return key
        }

        /// EVP_PKEY_PUBLIC_KEY, a compound macro Swift cannot import.
        static let publicKeySelection = Int32(
            OSSL_KEYMGMT_SELECT_DOMAIN_PARAMETERS | OSSL_KEYMGMT_SELECT_OTHER_PARAMETERS
                | OSSL_KEYMGMT_SELECT_PUBLIC_KEY)

        /// OSSL_PARAM keys must outlive the parameters: static strings, not temporaries of Swift literals.
        // Safety: pointers to immutable string literals in the binary, never written.
        nonisolated(unsafe) static let groupKey = UnsafeRawPointer(("group" as StaticString).utf8Start)
            .assumingMemoryBound(to: CChar.self)
        nonisolated(unsafe) static let pubKey = UnsafeRawPointer(("pub" as StaticString).utf8Start).assumingMemoryBound(
            to: CChar.self)

        static func ecPublic(_ point: [UInt8]) throws -> OpaquePointer {
            let ctx = EVP_PKEY_CTX_new_from_name(nil, "EC", nil)
            defer { EVP_PKEY_CTX_free(ctx) }
            var pkey: OpaquePointer?
            let ok = "prime256v1".withCString { group in
                point.withUnsafeBytes { p in
                    var params = [
                        OSSL_PARAM_construct_utf8_string(groupKey, UnsafeMutablePointer(mutating: group), 0),
                        OSSL_PARAM_construct_octet_string(
                            pubKey, UnsafeMutableRawPointer(mutating: p.baseAddress), p.count),
                        OSSL_PARAM_construct_end(),
                    ]
                    return EVP_PKEY_fromdata_init(ctx) == 1
                        && EVP_PKEY_fromdata(ctx, &pkey, publicKeySelection, &params) == 1
                }
            }
            guard ok, let pkey else { throw BenchError("EC peer key") }
            return pkey
        }

        /// JOSE's r || s as DER, once.
        static func der(_ raw: [UInt8]) -> [UInt8] {
            let sig = ECDSA_SIG_new()
            defer { ECDSA_SIG_free(sig) }
            ECDSA_SIG_set0(sig, BN_bin2bn(raw, 32, nil), BN_bin2bn(Array(raw[32...]), 32, nil))
            var out: UnsafeMutablePointer<UInt8>? = nil
            let n = i2d_ECDSA_SIG(sig, &out)
            defer { CRYPTO_free(out, "", 0) }
            return Array(UnsafeBufferPointer(start: out, count: Int(n)))
        }
    }
}
