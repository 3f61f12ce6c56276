import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

enum WycheproofPrimitive {
    /// The cryptographic check exactly as the JWS hot path runs it: this
    /// thread's prepared-context cache (so contexts are reused across
    /// vectors, as they are across tokens), after the caller's
    /// key-may-verify-alg check. Also run with a fresh context cache; the
    /// two must agree, or a reused context carries state between calls.
    static func verify(
        _ alg: JWTAlgorithm, key: VerificationKey, message: [UInt8], signature: [UInt8],
        label: @autoclosure () -> String
    ) -> WycheproofOutcome {
        guard key.algorithms.contains(alg) else {
            return .rejected("key \(key) may not verify \(alg.rawValue)")
        }
        // The JWS path always passes real pointers (decoded segments live in
        // scratch memory), even for an empty segment; so does this.
        let ok = withRealPointer(message) { m in
            withRealPointer(signature) { s in
                ThreadScratch.withBuffer(count: 0) { (_, scratch) in
                    SignatureCheck.verify(alg, key: key, signingInput: m, signature: s, contexts: scratch.contexts)
                }
            }
        }
        let fresh = withRealPointer(message) { m in
            withRealPointer(signature) { s in
                SignatureCheck.verify(alg, key: key, signingInput: m, signature: s, contexts: PKeyContextCache())
            }
        }
        XCTAssertEqual(ok, fresh, "\(label()): a reused OpenSSL context and a fresh one disagree")
        return ok ? .accepted : .rejected("signature does not verify")
    }

    private static func withRealPointer<R>(_ bytes: [UInt8], _ body: (UnsafeRawBufferPointer) -> R) -> R {
        let storage = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 16)
        defer { storage.deallocate() }
        storage.copyBytes(from: bytes)
        return body(UnsafeRawBufferPointer(start: storage.baseAddress, count: bytes.count))
    }

    /// A group's key from its DER SubjectPublicKeyInfo.
    static func keyFromDER(_ group: WycheproofGroup) -> Result<VerificationKey, KeyError> {
        guard let der = group.string("publicKeyDer") else {
            return .failure(KeyError(.notAKeySet, "group has no publicKeyDer"))
        }
        do { return .success(try VerificationKey(spkiDER: Wycheproof.hex(der), kid: "wycheproof")) } catch {
            return .failure(error)
        }
    }

    /// A group's key from its JWK (`publicKeyJwk` or `keyJwk`), if the group has one.
    static func keyFromJWK(_ group: WycheproofGroup) -> Result<VerificationKey, KeyError>? {
        guard let jwk = group.fields["publicKeyJwk"] ?? group.fields["keyJwk"] else { return nil }
        do { return .success(try VerificationKey(jwkJSON: Wycheproof.jsonBytes(jwk))) } catch { return .failure(error) }
    }

    /// The usual per-group check for public-key files: the key from DER is
    /// authoritative; the key from the group's JWK, when present, must load
    /// too and must give the same outcome for every vector.
    static func publicKeyCheck(
        file: WycheproofFile, group: WycheproofGroup, alg: JWTAlgorithm,
        jwkCrossChecks: inout Int
    ) -> (WycheproofVector) -> WycheproofOutcome {
        let der = keyFromDER(group)
        let jwk = keyFromJWK(group)
        if case .success = der, case .failure(let error)? = jwk {
            XCTFail("\(file.name) group \(group.index): the DER key loads but its JWK is refused: \(error)")
        }
        let jwkKey = try? jwk?.get()
        if jwkKey != nil { jwkCrossChecks += group.tests.count }
        return { vector in
            let message = vector.hex("msg"), signature = vector.hex("sig")
            let outcome: WycheproofOutcome
            switch der {
            case .failure(let error): outcome = .rejected("key refused: \(error)")
            case .success(let key):
                outcome = verify(
                    alg, key: key, message: message, signature: signature, label: "\(file.name) \(vector.label)")
            }
            if let jwkKey {
                let viaJWK = verify(
                    alg, key: jwkKey, message: message, signature: signature,
                    label: "\(file.name) \(vector.label) (JWK key)")
                XCTAssertEqual(
                    viaJWK.isAccepted, outcome.isAccepted,
                    "\(file.name) \(vector.label): key from DER \(outcome), key from JWK \(viaJWK)")
            }
            return outcome
        }
    }
}
