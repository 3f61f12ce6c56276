import COpenSSL
import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The RFC 8725 attack suite fixtures, generated once by
/// `scripts/gen_attack_tokens.py` and committed under Fixtures/attacks/.
enum AttackFixtures {
    /// The generator's clock, issuer and audience (its default policy).
    static let now: Int64 = 1_700_000_000
    static let issuer = "https://issuer.example"
    static let audience = "api://attack-suite"

    /// Pinned so that a regenerated or truncated fixture file is noticed.
    static let expectedCaseCount = 447
    static let expectedValidCount = 64

    struct Policy: Decodable {
        var now: Int64?
        var leeway: Int64?
        var algorithms: [String]?
        var issuers: [String]?
        var audiences: [String]?
        var typ: String?
        var nonce: String?
        var max_token_size: Int?
        var required_claims: [String]?
        var reject_iat_in_future: Bool?
        var max_age: Int64?
    }

    struct Case: Decodable {
        var name: String
        var token: String
        var jwks: String
        var expect_valid: Bool
        var expect_error: String?
        /// Ambiguous cases: any of these codes is a correct rejection.
        var accept_errors: [String]?
        var policy: Policy?
        var note: String?

        var acceptableCodes: Set<String> {
            Set(accept_errors ?? []).union(expect_error.map { [$0] } ?? [])
        }

        /// The algorithm named in the header, for positive-control coverage.
        var headerAlg: String? {
            guard let segment = token.split(separator: ".", omittingEmptySubsequences: false).first,
                let bytes = Base64URL.decode(segment),
                let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any]
            else { return nil }
            return object["alg"] as? String
        }
    }

    static func cases() throws -> [Case] {
        try JSONDecoder().decode([Case].self, from: Fixtures.data("attacks/tokens.json"))
    }

    static func publicKeys() throws -> JWKSet { try JWKSet(json: Fixtures.data("attacks/jwks.json")) }
    static func hmacKeys() throws -> JWKSet { try JWKSet(json: Fixtures.data("attacks/hmac-jwks.json")) }

    static func claimsPolicy(_ p: Policy?) -> ClaimsPolicy {
        ClaimsPolicy(
            algorithms: p?.algorithms.map { names in AlgorithmSet(names.map { JWTAlgorithm(rawValue: $0)! }) } ?? .all,
            issuers: p?.issuers ?? [issuer],
            audiences: p?.audiences ?? [audience],
            leeway: p?.leeway ?? 60,
            rejectIssuedInFuture: p?.reject_iat_in_future ?? false,
            maxAge: p?.max_age,
            requiredClaims: p?.required_claims ?? [],
            expectedType: p?.typ,
            expectedNonce: p?.nonce)
    }

    /// Builds verifiers per case from two loaded key sets (loading is the slow part).
    struct VerifierFactory {
        let publicKeys: JWKSet
        let hmacKeys: JWKSet

        init() throws {
            publicKeys = try AttackFixtures.publicKeys()
            hmacKeys = try AttackFixtures.hmacKeys()
        }

        func verifier(for c: Case) -> JWTVerifier {
            JWTVerifier(
                keys: c.jwks == "hmac" ? hmacKeys : publicKeys,
                policy: AttackFixtures.claimsPolicy(c.policy),
                clock: FixedClock(c.policy?.now ?? AttackFixtures.now),
                maxTokenSize: c.policy?.max_token_size ?? JWTVerifier.defaultMaxTokenSize)
        }
    }

    /// The outcome as a code: nil for a valid token.
    static func outcome(_ verifier: JWTVerifier, _ token: String) -> String? {
        do {
            _ = try verifier.verify(token)
            return nil
        } catch {
            return error.code.name
        }
    }
}
