import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Saved copies of providers' published key sets (Fixtures/jwks-snapshots),
/// and the other forms providers publish keys in: the `{kid: PEM certificate}`
/// map (Google / Firebase) and JWKs that carry the key only in `x5c`.
final class RealTokenSnapshotTests: XCTestCase {
    static func snapshotNames() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Fixtures.url("jwks-snapshots").path)
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(".json".count)) }
            .sorted()
    }

    /// Keys each snapshot is expected to refuse, by kid. Every published key in
    /// these snapshots is an RSA-2048 `use: sig` key (no `enc` keys, no weak keys),
    /// so nothing may be refused; a non-empty entry here must name the reason.
    static let expectedRejections: [String: [String]] = [:]

    func testEverySnapshotLoads() throws {
        let names = try Self.snapshotNames()
        XCTAssertEqual(names.count, 21)
        var totalKeys = 0
        for name in names {
            let path = "jwks-snapshots/\(name).json"
            let document = try KeyKit.object(path)
            XCTAssertNotNil(document["source"], name)
            let published = try XCTUnwrap(document["keys"] as? [[String: Any]], name)
            do {
                let set = try JWKSet(json: Array(try Fixtures.data(path)))
                let rejected = set.rejected.map { $0.kid ?? "?" }
                XCTAssertEqual(rejected, Self.expectedRejections[name] ?? [], "\(name): \(set.rejected)")
                XCTAssertEqual(
                    set.keys.map(\.kid), published.map { $0["kid"] as? String }.filter { !rejected.contains($0 ?? "") },
                    name)
                for key in set.keys {
                    guard case .rsa(let bits) = key.type else { XCTFail("\(name): \(key)"); continue }
                    XCTAssertGreaterThanOrEqual(bits, 2048, "\(name): \(key)")
                    XCTAssertTrue(key.algorithms.contains(.rs256), "\(name): \(key)")
                }
                totalKeys += set.keys.count
            } catch {
                XCTFail("\(name): \(error)")
            }
        }
        XCTAssertEqual(totalKeys, 50)
    }

    /// Every kid a snapshot lists as confirmed verifies its provider's tokens
    /// when the whole snapshot (several keys, chosen by kid) is the key set.
    func testConfirmedKidsVerifyTheirTokensAgainstTheWholeSnapshot() throws {
        let tokens = try RealTokenTests.load()
        var verified = 0
        for name in try Self.snapshotNames() {
            let document = try KeyKit.object("jwks-snapshots/\(name).json")
            let confirmed = try XCTUnwrap(document["confirmed_by_verified_token"] as? [String], name)
            let provider = String(name[..<name.lastIndex(of: "-")!])
            let set = try JWKSet(json: Array(try Fixtures.data("jwks-snapshots/\(name).json")))
            for kid in confirmed {
                let matching = tokens.filter { $0.provider == provider && $0.kid == kid }
                XCTAssertFalse(matching.isEmpty, "\(name): no token for confirmed kid \(kid)")
                for t in matching {
                    let verifier = JWTVerifier(
                        keys: set, policy: ClaimsPolicy(issuers: [t.iss], audiences: [t.aud]),
                        clock: FixedClock(t.iat + 1))
                    do {
                        let jwt = try verifier.verify(t.token)
                        XCTAssertEqual(jwt.key.kid, kid)
                        verified += 1
                    } catch {
                        XCTFail("\(t.name) with snapshot \(name): \(error)")
                    }
                }
            }
        }
        XCTAssertEqual(verified, 50)
    }

    // MARK: {kid: PEM certificate}

    /// Fixtures/jwks-snapshots/x509/firebase-N-pem-map.json wrap the snapshot's
    /// `x5c` DER as PEM certificates keyed by kid, the form Firebase publishes at
    /// .../x509/securetoken@system.gserviceaccount.com.
    func testFirebasePEMMapMatchesTheSnapshotX5C() throws {
        for name in ["firebase-1", "firebase-2"] {
            let snapshot = try XCTUnwrap(try KeyKit.object("jwks-snapshots/\(name).json")["keys"] as? [[String: Any]])
            let map = try XCTUnwrap(try KeyKit.object("jwks-snapshots/x509/\(name)-pem-map.json") as? [String: String])
            XCTAssertEqual(Set(map.keys), Set(snapshot.compactMap { $0["kid"] as? String }), name)
            for jwk in snapshot {
                let kid = try XCTUnwrap(jwk["kid"] as? String)
                let x5c = try XCTUnwrap((jwk["x5c"] as? [String])?.first)
                XCTAssertEqual(map[kid], KeyKit.pem("CERTIFICATE", base64: x5c), "\(name) \(kid)")
            }
        }
    }

    func testFirebasePEMMapLoadsAndVerifiesTheFirebaseTokens() throws {
        let map = Array(try Fixtures.data("jwks-snapshots/x509/firebase-1-pem-map.json"))
        let set = try JWKSet(json: map)
        XCTAssertEqual(set.rejected, [])
        XCTAssertEqual(
            Set(set.keys.compactMap(\.kid)),
            ["857081ca9cbb37c23498dd3943bf371a05883d28", "71115235a6c61454efdedc45a77e4351367eebe0"])
        for key in set.keys { XCTAssertEqual(key.type, .rsa(bits: 2048), "\(key)") }

        let firebase = try RealTokenTests.load().filter { $0.provider == "firebase" }
        XCTAssertEqual(firebase.count, 3)
        for t in firebase {
            let verifier = JWTVerifier(
                keys: set, policy: ClaimsPolicy(issuers: [t.iss], audiences: [t.aud]),
                clock: FixedClock(t.iat + 1))
            do {
                let jwt = try verifier.verify(t.token)
                XCTAssertEqual(jwt.kid, t.kid, t.name)
                XCTAssertTrue(t.iss.hasPrefix("https://securetoken.google.com/"), t.name)
            } catch {
                XCTFail("\(t.name): \(error)")
            }
            KeyKit.expect(.expired, t.name) {
                _ = try JWTVerifier(keys: set, clock: FixedClock(t.exp + 3600)).verify(t.token)
            }
        }
        // The other snapshot's certificate is not the key of any of these tokens.
        let other = try JWKSet(json: Array(try Fixtures.data("jwks-snapshots/x509/firebase-2-pem-map.json")))
        XCTAssertEqual(other.keys.count, 1)
        XCTAssertEqual(other.rejected, [])
        for t in firebase {
            KeyKit.expect(.unknownKid, t.name) {
                _ = try JWTVerifier(keys: other, clock: FixedClock(t.iat + 1)).verify(t.token)
            }
        }
    }

    /// The same certificates one at a time through `VerificationKey(pem:kid:)`.
    func testFirebaseCertificatesLoadOneByOne() throws {
        let map = try XCTUnwrap(try KeyKit.object("jwks-snapshots/x509/firebase-1-pem-map.json") as? [String: String])
        let keys = try map.sorted { $0.key < $1.key }.map {
            try VerificationKey(pem: $0.value, kid: $0.key, algorithm: .rs256)
        }
        let firebase = try RealTokenTests.load().filter { $0.provider == "firebase" }
        for t in firebase {
            XCTAssertNoThrow(
                try JWTVerifier(keys: JWKSet(keys: keys), clock: FixedClock(t.iat + 1)).verify(t.token), t.name)
        }
    }

    // MARK: x5c-only JWKs

    /// A JWK whose key is only in `x5c` (no `n`/`e`), as some providers publish.
    func testX5COnlyJWKVerifies() throws {
        var checked = 0
        for t in try RealTokenTests.load() where t.provider == "firebase" || t.provider == "microsoft" {
            let document = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(t.jwks)) as? [String: Any])
            var jwk = try XCTUnwrap((document["keys"] as? [[String: Any]])?.first, t.name)
            guard jwk["x5c"] != nil else { continue }
            jwk["n"] = nil
            jwk["e"] = nil
            let set = try KeyKit.set([jwk])
            XCTAssertEqual(set.rejected, [], t.name)
            XCTAssertEqual(set.keys.first?.type, .rsa(bits: 2048), t.name)
            let verifier = JWTVerifier(
                keys: set, policy: ClaimsPolicy(issuers: [t.iss], audiences: [t.aud]),
                clock: FixedClock(t.iat + 1))
            XCTAssertNoThrow(try verifier.verify(t.token), t.name)
            checked += 1
        }
        XCTAssertEqual(checked, 3, "the three Firebase token key sets carry x5c")

        // And the whole Firebase snapshot stripped the same way.
        var snapshot = try KeyKit.object("jwks-snapshots/firebase-1.json")
        snapshot["keys"] = (snapshot["keys"] as! [[String: Any]]).map { jwk in
            var jwk = jwk
            jwk["n"] = nil
            jwk["e"] = nil
            return jwk
        }
        let set = try JWKSet(json: try KeyKit.bytes(snapshot))
        XCTAssertEqual(set.keys.count, 2)
        XCTAssertEqual(set.rejected, [])
        for t in try RealTokenTests.load() where t.provider == "firebase" {
            XCTAssertNoThrow(try JWTVerifier(keys: set, clock: FixedClock(t.iat + 1)).verify(t.token), t.name)
        }
    }

    /// `x5c` names the key; a `kty` that contradicts the certificate's key is refused.
    func testX5CWhoseCertificateContradictsKtyIsRefused() throws {
        let snapshot = try KeyKit.object("jwks-snapshots/firebase-2.json")
        var jwk = try XCTUnwrap((snapshot["keys"] as? [[String: Any]])?.first)
        jwk["n"] = nil
        jwk["e"] = nil
        jwk["alg"] = nil
        jwk["kty"] = "EC"
        jwk["crv"] = "P-256"
        let error = KeyKit.refusal(jwk)
        XCTAssertEqual(error?.kid, "6f7de798eee8a24ebade6f228411220c8669010d")
        XCTAssertNotNil(error)
    }

    /// A corrupted certificate is refused, and only that key.
    func testCorruptX5CRefusesOnlyThatKey() throws {
        let snapshot = try KeyKit.object("jwks-snapshots/firebase-1.json")
        var keys = try XCTUnwrap(snapshot["keys"] as? [[String: Any]])
        var broken = keys[0]
        broken["n"] = nil
        broken["e"] = nil
        let der = Data(base64Encoded: (broken["x5c"] as! [String])[0])!
        broken["x5c"] = [der.prefix(der.count - 10).base64EncodedString()]
        keys[0] = broken
        let set = try KeyKit.set(keys)
        XCTAssertEqual(set.rejected.map(\.kid), [keys[0]["kid"] as? String])
        XCTAssertEqual(set.keys.map(\.kid), [keys[1]["kid"] as? String])
    }
}
