import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Real ID tokens signed by real identity providers (Fixtures/real-tokens,
/// copied from the project's shared data; see its README). Each folder holds
/// `token.txt`, the `jwks.json` that verifies it and `meta.json`.
final class RealTokenTests: XCTestCase {
    struct RealToken {
        let name: String
        let provider: String
        let token: String
        let jwks: [UInt8]
        let iss: String
        let aud: String
        let kid: String
        let alg: JWTAlgorithm
        let iat: Int64
        let exp: Int64
    }

    static func load() throws -> [RealToken] {
        try Fixtures.directories("real-tokens").map { name in
            let meta = try KeyKit.object("real-tokens/\(name)/meta.json")
            func string(_ key: String) throws -> String { try XCTUnwrap(meta[key] as? String, "\(name): meta \(key)") }
            func int(_ key: String) throws -> Int64 {
                try XCTUnwrap((meta[key] as? NSNumber)?.int64Value, "\(name): meta \(key)")
            }
            return RealToken(
                name: name,
                provider: try string("provider"),
                token: try Fixtures.text("real-tokens/\(name)/token.txt"),
                jwks: Array(try Fixtures.data("real-tokens/\(name)/jwks.json")),
                iss: try string("iss"), aud: try string("aud"), kid: try string("kid"),
                alg: try XCTUnwrap(JWTAlgorithm(rawValue: try string("alg"))),
                iat: try int("iat"), exp: try int("exp"))
        }
    }

    static func verifier(
        _ t: RealToken, at time: Int64, issuers: [String]? = nil, audiences: [String]? = nil
    ) throws -> JWTVerifier {
        JWTVerifier(
            keys: try JWKSet(json: t.jwks),
            policy: ClaimsPolicy(issuers: issuers ?? [t.iss], audiences: audiences ?? [t.aud]),
            clock: FixedClock(time))
    }

    func testTokenCount() throws {
        let tokens = try Self.load()
        XCTAssertEqual(tokens.count, 72, "a test over the real tokens must not pass on fewer (or zero) tokens")
        var perProvider: [String: Int] = [:]
        for t in tokens { perProvider[t.provider.hasPrefix("extra-") ? "extra" : t.provider, default: 0] += 1 }
        XCTAssertEqual(
            perProvider, ["apple": 24, "google": 10, "firebase": 3, "facebook": 3, "microsoft": 5, "extra": 27])
        XCTAssertTrue(tokens.allSatisfy { $0.alg == .rs256 })
    }

    func testEveryJWKSLoadsWholly() throws {
        for t in try Self.load() {
            do {
                let set = try JWKSet(json: t.jwks)
                XCTAssertEqual(set.rejected, [], t.name)
                XCTAssertEqual(set.keys.map(\.kid), [t.kid], t.name)
                if case .rsa(let bits) = set.keys.first?.type {
                    XCTAssertGreaterThanOrEqual(bits, 2048, t.name)
                } else {
                    XCTFail("\(t.name): not an RSA key")
                }
            } catch {
                XCTFail("\(t.name): \(error)")
            }
        }
    }

    func testEveryTokenVerifiesAtIssuedAtPlusOne() throws {
        var verified = 0
        for t in try Self.load() {
            do {
                let jwt = try Self.verifier(t, at: t.iat + 1).verify(t.token)
                XCTAssertEqual(jwt.algorithm, t.alg, t.name)
                XCTAssertEqual(jwt.kid, t.kid, t.name)
                XCTAssertEqual(jwt.key.kid, t.kid, t.name)
                XCTAssertEqual(jwt.issuer, t.iss, t.name)
                XCTAssertTrue(jwt.audiences.contains(t.aud), "\(t.name): \(jwt.audiences)")
                XCTAssertEqual(jwt.issuedAt, Double(t.iat), t.name)
                XCTAssertEqual(jwt.expiresAt, Double(t.exp), t.name)
                verified += 1
            } catch {
                XCTFail("\(t.name): \(error)")
            }
        }
        XCTAssertEqual(verified, 72)
    }

    func testEveryTokenVerifiesAsJWS() throws {
        for t in try Self.load() {
            do {
                let jws = try JWTVerifier(keys: try JWKSet(json: t.jwks)).verifyJWS(t.token)
                XCTAssertEqual(jws.kid, t.kid, t.name)
                XCTAssertEqual(jws.algorithm, t.alg, t.name)
            } catch {
                XCTFail("\(t.name): \(error)")
            }
        }
    }

    func testEveryTokenHasExpiredAnHourAfterExp() throws {
        for t in try Self.load() {
            let verifier = try Self.verifier(t, at: t.exp + 3600)
            KeyKit.expect(.expired, t.name) { _ = try verifier.verify(t.token) }
        }
    }

    func testEveryTokenFailsWithAnotherAudience() throws {
        for t in try Self.load() {
            let verifier = try Self.verifier(t, at: t.iat + 1, audiences: ["https://another-audience.example"])
            KeyKit.expect(.badAudience, t.name) { _ = try verifier.verify(t.token) }
        }
    }

    func testEveryTokenFailsWithAnotherIssuer() throws {
        for t in try Self.load() {
            let verifier = try Self.verifier(t, at: t.iat + 1, issuers: ["https://another-issuer.example"])
            KeyKit.expect(.badIssuer, t.name) { _ = try verifier.verify(t.token) }
        }
    }

    func testEveryTokenFailsWithAFlippedSignatureBit() throws {
        for t in try Self.load() {
            let verifier = try Self.verifier(t, at: t.iat + 1)
            let forged = KeyKit.flippingSignatureBit(t.token)
            KeyKit.expect(.badSignature, t.name) { _ = try verifier.verify(forged) }
        }
    }

    /// Another provider's key set, even with every key loaded, has no key for the token.
    func testTokensDoNotVerifyWithAnotherProvidersKeys() throws {
        let tokens = try Self.load()
        let apple = try XCTUnwrap(tokens.first { $0.name == "apple-1" })
        let google = try XCTUnwrap(tokens.first { $0.name == "google-1" })
        let verifier = JWTVerifier(keys: try JWKSet(json: google.jwks), clock: FixedClock(apple.iat + 1))
        KeyKit.expect(.unknownKid) { _ = try verifier.verify(apple.token) }
    }

    /// Google documents both spellings of its issuer; only the configured one is accepted.
    func testGoogleIssuerSpellings() throws {
        let tokens = try Self.load().filter { $0.provider == "google" }
        XCTAssertEqual(Set(tokens.map(\.iss)), ["https://accounts.google.com", "accounts.google.com"])
        let both = ["https://accounts.google.com", "accounts.google.com"]
        for t in tokens {
            XCTAssertNoThrow(try Self.verifier(t, at: t.iat + 1, issuers: both).verify(t.token), t.name)
            let other = t.iss == both[0] ? both[1] : both[0]
            let verifier = try Self.verifier(t, at: t.iat + 1, issuers: [other])
            KeyKit.expect(.badIssuer, t.name) { _ = try verifier.verify(t.token) }
        }
    }
}
