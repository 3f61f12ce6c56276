import XCTest

@_spi(Internals) @testable import JWTKernel

/// Wycheproof `json_web_signature` and `json_web_key` vectors, run through
/// the public API as an application would: the group's key (the public JWK
/// or JWK Set when there is one, else the symmetric key in `private`) goes
/// through `JWKSet(json:)`, and the token through `JWTVerifier.verifyJWS`
/// (signature only: the payloads, such as "foo", are not JWT claims).
/// A key set that does not load, or loads without a usable key, rejects.
final class WycheproofJOSETests: XCTestCase {
    // MARK: json_web_signature

    /// Vectors of json_web_signature_test.json that contradict themselves
    /// or other vectors of the same file upstream. No verifier can satisfy
    /// them together with the vectors named in each reason; the kernel's
    /// behaviour is asserted, and `testJsonWebSignature` proves each reason.
    private static let jwsDefects: [WycheproofDivergence] = [
        WycheproofDivergence(
            [367, 370], wycheproofSays: .invalid, kernelAccepts: true,
            why: "invalidBase64Padding*: the token is byte-identical to the valid tcId 357 (the '=' padding "
                + "the name describes was lost upstream), so it verifies like 357"),
        WycheproofDivergence(
            [372, 373], wycheproofSays: .valid, kernelAccepts: false,
            why: "InvalidCharacterInserted*: a '?' inside a base64url segment; RFC 7515 §2 base64url has no '?', "
                + "and the MAC is tcId 357's, computed over the segments without it (361 and 371, the same "
                + "defect elsewhere in the token, are rated invalid)"),
        WycheproofDivergence(
            [346, 350], wycheproofSays: .valid, kernelAccepts: false,
            why: "RFC 7520 Figure 20 is a PS384 JWS, but Wycheproof gave its key \"alg\": \"PS256\"; a key's alg "
                + "restricts it (RFC 7517 §4.4, RFC 8725 §3.1), as the file's own WrongPrimitive vectors 331-340 require"
        ),
        WycheproofDivergence(
            [347, 351], wycheproofSays: .valid, kernelAccepts: false,
            why: "RFC 7520 Figure 27 is an ES512 JWS, but Wycheproof gave its key \"alg\": \"ES521\", which is no JWS "
                + "algorithm; the kernel refuses such a key, as json_web_key tcId 19 requires"),
    ]

    func testJsonWebSignature() throws {
        let file = try WycheproofFile("json_web_signature_test.json")
        var outcomes: [Int: WycheproofOutcome] = [:]
        let tally = Wycheproof.run(file, expectedCount: 401, divergences: Self.jwsDefects) { group in
            let keys = Self.keySet(group)
            return { vector in
                let outcome = Self.verify(vector.string("jws"), keys, label: "\(file.name) \(vector.label)")
                outcomes[vector.tcId] = outcome
                return outcome
            }
        }
        XCTAssertEqual(tally.valid, 46)
        XCTAssertEqual(tally.invalid, 355)

        // The reasons given in `jwsDefects`, checked.
        let reference = try XCTUnwrap(file.vector(357))
        XCTAssertEqual(reference.result, .valid)
        for id in [367, 370] {
            XCTAssertEqual(
                try XCTUnwrap(file.vector(id)).string("jws"), reference.string("jws"), "tcId \(id) is tcId 357's token")
        }
        for id in [372, 373] {
            let token = try XCTUnwrap(file.vector(id)).string("jws")
            XCTAssertEqual(
                token.replacingOccurrences(of: "?", with: ""), reference.string("jws"),
                "tcId \(id) is tcId 357's token plus a '?'")
            guard case .rejected(let why)? = outcomes[id] else { XCTFail("tcId \(id) was not rejected"); continue }
            XCTAssertTrue(why.hasPrefix("malformed"), "tcId \(id) is rejected as malformed base64url, not \(why)")
        }
        for id in [346, 347, 350, 351] {
            let group = try XCTUnwrap(file.groups.first { $0.tests.contains { $0.tcId == id } })
            var key = try XCTUnwrap(group.fields["public"] as? [String: Any])
            XCTAssertNotNil(key.removeValue(forKey: "alg"))
            let keys = Result<JWKSet, KeyError> { () throws(KeyError) in try JWKSet(json: Wycheproof.jsonBytes(key)) }
            let token = try XCTUnwrap(file.vector(id)).string("jws")
            let outcome = Self.verify(token, keys, label: "tcId \(id) with the key's alg removed")
            XCTAssertTrue(
                outcome.isAccepted,
                "tcId \(id): the signature itself verifies once the key's alg is dropped; \(outcome)")
        }
    }

    // MARK: json_web_key

    func testJsonWebKey() throws {
        let file = try WycheproofFile("json_web_key_test.json")
        let tally = Wycheproof.run(file, expectedCount: 26) { group in
            let keys = Self.keySet(group)
            return { vector in Self.verify(vector.string("jws"), keys, label: "\(file.name) \(vector.label)") }
        }
        XCTAssertEqual(tally.valid, 5)
        XCTAssertEqual(tally.invalid, 21)
    }

    // MARK: Helpers

    /// The key set a verifier would be configured with for this group.
    private static func keySet(_ group: WycheproofGroup) -> Result<JWKSet, KeyError> {
        guard let json = group.fields["public"] ?? group.fields["private"] else {
            return .failure(KeyError(.notAKeySet, "group \(group.index) has no key"))
        }
        return Result { () throws(KeyError) in try JWKSet(json: Wycheproof.jsonBytes(json)) }
    }

    private static func verify(_ token: String, _ keys: Result<JWKSet, KeyError>, label: String) -> WycheproofOutcome {
        let set: JWKSet
        switch keys {
        case .failure(let error): return .rejected("key set refused: \(error)")
        case .success(let s): set = s
        }
        let verifier = JWTVerifier(keys: set, policy: ClaimsPolicy(), clock: FixedClock(0))
        do {
            let verified = try verifier.verifyJWS(token)
            // What was verified is what the token carries.
            let segments = token.split(separator: ".", omittingEmptySubsequences: false)
            XCTAssertEqual(segments.count, 3, "\(label): accepted a token without three segments")
            if segments.count == 3 {
                XCTAssertEqual(Base64URL.decode(segments[1]), verified.payload, "\(label): payload")
                XCTAssertEqual(Base64URL.decode(segments[0]), verified.header, "\(label): header")
            }
            return .accepted
        } catch {
            let refused =
                set.rejected.isEmpty
                ? "" : "; refused keys: \(set.rejected.map(\.description).joined(separator: " | "))"
            return .rejected("\(error)\(refused)")
        }
    }
}
