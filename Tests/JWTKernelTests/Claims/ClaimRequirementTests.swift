import XCTest

@_spi(Internals) @testable import JWTKernel

/// Claim-value requirements: each kind, pointers (nested, "/" and "~" in names, array indices), arrays
/// against space-separated strings, numbers by exact value, booleans, absent claims and wrong types, and
/// the code every failure gets. Tokens are HS256 over exactly the claims text each test gives.
final class ClaimRequirementTests: XCTestCase {
    let now: Int64 = 1_700_000_000
    let secret = [UInt8](repeating: 0x5A, count: 32)
    lazy var keys = JWKSet(keys: [try! VerificationKey(hmacSecret: secret, kid: "k")])

    /// nil when the token verifies under a policy with exactly these requirements.
    func outcome(
        _ claims: String, _ requirements: [ClaimRequirement], cache: VerifiedTokenCache? = nil
    )
        -> JWTError?
    {
        let policy = ClaimsPolicy(requireExpiration: false, claimRequirements: requirements)
        let verifier = JWTVerifier(keys: keys, policy: policy, clock: FixedClock(now), cache: cache)
        let verdict = verifier.check(
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k"}"#, claims: claims, key: secret))
        // The verifier checks requirements from the top-level claims its one read of the claims recorded;
        // the walk (MultiIssuerVerifier's way, the claims read before the policy is known) must agree,
        // message for message.
        if cache == nil {
            XCTAssertEqual(walkOutcome(claims, CompiledPolicy(policy)), verdict, "recorded vs walked: \(claims)")
        }
        return verdict
    }

    /// `outcome`'s policy steps with the requirements' claims found by a walk of the claims.
    func walkOutcome(_ claims: String, _ compiled: CompiledPolicy) -> JWTError? {
        Array(claims.utf8).withUnsafeBytes { p -> JWTError? in
            do throws(JWTError) {
                let c = try RegisteredClaims.read(
                    p, required: compiled.requiredKeys, requiredNames: compiled.requiredClaims)
                try compiled.check(c, in: p, now: now)
                return nil
            } catch {
                return error
            }
        }
    }

    func req(_ pointer: String, _ condition: ClaimRequirement.Condition) -> ClaimRequirement {
        try! ClaimRequirement(pointer, condition)
    }

    func assertHolds(
        _ claims: String, _ r: ClaimRequirement, _ why: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertNil(outcome(claims, [r]), "\(claims) under \(r) \(why)", file: file, line: line)
    }

    func assertFails(
        _ claims: String, _ r: ClaimRequirement, _ why: String = "", file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertEqual(
            outcome(claims, [r])?.code, .claimRequirementFailed, "\(claims) under \(r) \(why)", file: file, line: line)
    }

    // MARK: equals

    func testEqualsString() {
        assertHolds(#"{"tenant":"acme"}"#, req("/tenant", .equals("acme")))
        assertHolds(#"{"tenant":"\u0061cme"}"#, req("/tenant", .equals("acme")), "escapes decode before comparing")
        assertFails(#"{"tenant":"Acme"}"#, req("/tenant", .equals("acme")))
        assertFails(#"{"tenant":"acme "}"#, req("/tenant", .equals("acme")))
        assertFails(#"{"tenant":["acme"]}"#, req("/tenant", .equals("acme")), "an array never equals a string")
        assertHolds(#"{"t":""}"#, req("/t", .equals("")))
        assertHolds(#"{"name":"Zoë"}"#, req("/name", .equals("Zoë")))
    }

    func testEqualsBoolean() {
        assertHolds(#"{"email_verified":true}"#, req("/email_verified", .equals(true)))
        assertFails(#"{"email_verified":false}"#, req("/email_verified", .equals(true)))
        assertFails(
            #"{"email_verified":"true"}"#, req("/email_verified", .equals(true)), "the string is not the boolean")
        assertFails(#"{"email_verified":1}"#, req("/email_verified", .equals(true)))
        assertFails(#"{"email_verified":null}"#, req("/email_verified", .equals(false)))
        assertHolds(#"{"admin":false}"#, req("/admin", .equals(false)))
    }

    /// JSON has one number type (RFC 8259 section 6): values compare exactly, whatever the spelling.
    func testEqualsNumberByExactValue() {
        for spelling in ["1", "1.0", "1.000", "10e-1", "0.1e1", "1E0", "1e+0", "100e-2"] {
            assertHolds("{\"n\":\(spelling)}", req("/n", .equals(1)))
            assertHolds(#"{"n":1}"#, req("/n", .equals(.number(spelling))))
        }
        assertHolds(#"{"n":-0.0}"#, req("/n", .equals(0)), "-0 == 0")
        assertHolds(#"{"n":0}"#, req("/n", .equals(.number("-0e7"))))
        assertHolds(#"{"n":0.25}"#, req("/n", .equals(0.25)))
        assertHolds(#"{"n":2500e-4}"#, req("/n", .equals(0.25)))
        assertFails(#"{"n":-1}"#, req("/n", .equals(1)))
        assertFails(#"{"n":1.01}"#, req("/n", .equals(1)))
        assertFails(#"{"n":10}"#, req("/n", .equals(1)))
        assertFails(#"{"n":"1"}"#, req("/n", .equals(1)), "the string is not the number")
        assertFails(#"{"n":1}"#, req("/n", .equals("1")))
        // Beyond a Double's 53 bits: exact digits, not the nearest binary value.
        assertFails(#"{"n":9007199254740993}"#, req("/n", .equals(.number("9007199254740992"))))
        assertHolds(#"{"n":9007199254740993}"#, req("/n", .equals(.number("9007199254740993"))))
        assertHolds(#"{"n":12345678901234567890123}"#, req("/n", .equals(.number("1.2345678901234567890123e22"))))
        // Exponents past any real claim saturate and never equal anything.
        assertFails(#"{"n":1e99999999999999999999}"#, req("/n", .equals(.number("1e100000"))))
        assertFails(#"{"n":0.1e-99999999999999999999}"#, req("/n", .equals(.number("1e-100000"))))
    }

    func testJSONDecimalShapes() {
        func shape(_ s: String) -> JSONDecimal {
            Array(s.utf8).withUnsafeBufferPointer { JSONDecimal($0.baseAddress!, start: 0, end: $0.count) }
        }
        XCTAssertEqual(shape("123").exponent, 3)
        XCTAssertEqual(shape("0.05").exponent, -1)
        XCTAssertEqual(shape("120.50").digits, 4)
        XCTAssertTrue(shape("0.000").isZero)
        XCTAssertTrue(shape("-0e-5").isZero)
    }

    // MARK: oneOf

    func testOneOf() {
        let plan = req("/plan", .oneOf(["pro", "team"]))
        assertHolds(#"{"plan":"pro"}"#, plan)
        assertHolds(#"{"plan":"team"}"#, plan)
        assertFails(#"{"plan":"free"}"#, plan)
        assertFails(#"{"plan":["pro"]}"#, plan)
        assertHolds(#"{"level":3.0}"#, req("/level", .oneOf([1, 3, "3"])))
        assertHolds(#"{"level":"3"}"#, req("/level", .oneOf([1, 3, "3"])))
        assertFails(#"{"level":true}"#, req("/level", .oneOf([1, 3, "3"])))
    }

    // MARK: contains

    func testContainsAllOnSpaceSeparatedString() {
        let rw = req("/scope", .containsAll(["read", "write"]))
        assertHolds(#"{"scope":"read write"}"#, rw)
        assertHolds(#"{"scope":"openid write profile read"}"#, rw)
        assertHolds(#"{"scope":"  read   write "}"#, rw, "runs of spaces separate words too")
        assertFails(#"{"scope":"read"}"#, rw)
        assertFails(#"{"scope":"readwrite"}"#, rw)
        assertFails(#"{"scope":"read\twrite"}"#, rw, "only U+0020 separates (RFC 6749 section 3.3)")
        assertFails(#"{"scope":"reading write"}"#, rw, "a prefix is not the word")
        assertFails(#"{"scope":"rea write"}"#, rw)
        assertHolds(#"{"scope":"re\u0061d write"}"#, rw, "escapes decode before splitting")
        assertFails(#"{"scope":""}"#, rw)
        assertFails(
            #"{"scope":"read write"}"#, req("/scope", .containsAll(["read write"])),
            "a value with a space is never a word")
        assertFails(#"{"scope":"a  b"}"#, req("/scope", .containsAny([""])), "empty words match nothing")
    }

    func testContainsOnArrays() {
        let roles = req("/roles", .containsAll(["admin", "dev"]))
        assertHolds(#"{"roles":["dev","ops","admin"]}"#, roles)
        assertFails(#"{"roles":["dev"]}"#, roles)
        assertFails(#"{"roles":["admin dev"]}"#, roles, "array elements are not split")
        assertFails(#"{"roles":[]}"#, roles)
        assertFails(#"{"roles":[["admin","dev"]]}"#, roles, "nested arrays are not searched")
        assertHolds(
            #"{"roles":["Org Admin"]}"#, req("/roles", .containsAny(["Org Admin"])), "array elements may hold spaces")
        assertHolds(#"{"groups":[1,2.0,true]}"#, req("/groups", .containsAll([2, true])))
        assertFails(#"{"groups":["2"]}"#, req("/groups", .containsAll([2])))
        let any = req("/roles", .containsAny(["admin", "owner"]))
        assertHolds(#"{"roles":["viewer","owner"]}"#, any)
        assertHolds(#"{"roles":"viewer owner"}"#, any)
        assertFails(#"{"roles":["viewer"]}"#, any)
    }

    func testContainsOnOtherTypesFails() {
        let r = req("/x", .containsAny(["1"]))
        for value in ["1", "true", "null", #"{"1":"1"}"#] {
            XCTAssertEqual(
                outcome("{\"x\":\(value)}", [r])?.message,
                "claim requirement /x contains_any: a claim that must contain values is neither an array nor a string")
        }
        assertFails(#"{"x":"1"}"#, req("/x", .containsAny([1])), "a number is never a word of a string")
    }

    // MARK: pointers

    func testNestedAndEscapedPointers() {
        assertHolds(#"{"realm_access":{"roles":["admin"]}}"#, req("/realm_access/roles", .containsAll(["admin"])))
        assertHolds(
            #"{"https://example.com/roles":["admin"]}"#, req("/https:~1~1example.com~1roles", .containsAny(["admin"])))
        assertHolds(#"{"a~b":{"c/d":1}}"#, req("/a~0b/c~1d", .equals(1)))
        assertFails(#"{"a~b":{"c/d":1}}"#, req("/a~1b/c~1d", .equals(1)), "~1 is /, not ~")
        assertHolds(#"{"address":{"country":"FR"}}"#, req("/address/country", .equals("FR")))
        assertHolds(#"{"roles":["a","b"]}"#, req("/roles/1", .equals("b")), "array indices")
        assertFails(#"{"roles":["a","b"]}"#, req("/roles/01", .equals("b")))
        assertFails(#"{"roles":["a","b"]}"#, req("/roles/-", .equals("b")))
        assertHolds(#"{"":{"":"x"}}"#, req("//", .equals("x")), "empty member names")
        assertHolds(#"{"a.b":"dotted"}"#, req("/a.b", .equals("dotted")), "dots have no meaning in a pointer")
        assertFails(#"{"a":{"b":"x"}}"#, req("/a.b", .equals("x")))
    }

    func testMissingClaimFails() {
        let error = outcome(#"{"sub":"x"}"#, [req("/tenant", .equals("acme"))])
        XCTAssertEqual(error?.code, .claimRequirementFailed)
        XCTAssertEqual(error?.message, "claim requirement /tenant equals: a claim a requirement names is absent")
        assertFails(#"{"a":"x"}"#, req("/a/b", .equals("x")), "a step into a string")
        assertFails(#"{"a":{}}"#, req("/a/b", .containsAny(["x"])))
        assertFails(#"{"tenant":null}"#, req("/tenant", .equals("acme")))
    }

    // MARK: several, order, and the rest of the policy

    func testEveryRequirementMustHoldAndOtherChecksComeFirst() {
        let rs = [req("/tenant", .equals("acme")), req("/scope", .containsAll(["read"]))]
        XCTAssertNil(outcome(#"{"tenant":"acme","scope":"read"}"#, rs))
        XCTAssertEqual(outcome(#"{"tenant":"acme","scope":"write"}"#, rs)?.code, .claimRequirementFailed)
        XCTAssertEqual(outcome(#"{"tenant":"x","scope":"read"}"#, rs)?.code, .claimRequirementFailed)
        // An expired token is expired (401), never "insufficient" (403).
        XCTAssertEqual(outcome("{\"exp\":\(now - 3600),\"tenant\":\"x\"}", rs)?.code, .expired)
        // A forged token is a bad signature whatever its claims.
        let forged = AttackSigner.token(
            header: #"{"alg":"HS256","kid":"k"}"#, claims: #"{"tenant":"x"}"#, key: [UInt8](repeating: 1, count: 32))
        let v = JWTVerifier(keys: keys, policy: ClaimsPolicy(requireExpiration: false, claimRequirements: rs))
        XCTAssertEqual(v.check(forged)?.code, .badSignature)
    }

    /// A cache shared by verifiers of different requirements never serves one's entry to the other.
    func testSharedCacheKeepsPoliciesApart() {
        let cache = VerifiedTokenCache()
        let claims = #"{"tenant":"acme"}"#
        XCTAssertNil(outcome(claims, [req("/tenant", .equals("acme"))], cache: cache))
        XCTAssertNil(outcome(claims, [req("/tenant", .equals("acme"))], cache: cache))
        XCTAssertEqual(outcome(claims, [req("/tenant", .equals("other"))], cache: cache)?.code, .claimRequirementFailed)
        XCTAssertEqual(
            outcome(claims, [req("/tenant", .equals(.number("1")))], cache: cache)?.code, .claimRequirementFailed)
    }

    func testMultiIssuerRoutesCheckTheirRequirements() throws {
        let iss = "https://issuer.example"
        let store = KeyStore()
        store.publish(keys, forIssuer: iss)
        let policy = ClaimsPolicy(
            issuers: [iss], requireExpiration: false, claimRequirements: [req("/tenant", .equals("acme"))])
        let v = MultiIssuerVerifier(
            store: store, issuers: [IssuerConfiguration(issuer: iss, policy: policy)], clock: FixedClock(now))
        let token = { (claims: String) in
            AttackSigner.token(header: #"{"alg":"HS256","kid":"k"}"#, claims: claims, key: self.secret)
        }
        XCTAssertNil(v.check(token("{\"iss\":\"\(iss)\",\"tenant\":\"acme\"}")))
        XCTAssertEqual(v.check(token("{\"iss\":\"\(iss)\",\"tenant\":\"evil\"}"))?.code, .claimRequirementFailed)
    }

    // MARK: construction

    func testBadRequirementsAreRefusedWithAReason() {
        func message(_ pointer: String, _ c: ClaimRequirement.Condition) -> String? {
            do { _ = try ClaimRequirement(pointer, c); return nil } catch { return error.message }
        }
        XCTAssertEqual(message("", .equals("x")), "the pointer is empty, which names the whole claims set, not a claim")
        XCTAssertEqual(
            message("scope", .equals("x")), #""scope" is not a JSON Pointer: it must start with "/" ("/scope")"#)
        XCTAssertEqual(message("/a~2", .equals("x")), #""/a~2" is not a JSON Pointer: "~" must be followed by 0 or 1"#)
        XCTAssertEqual(message("/a~", .equals("x")), #""/a~" is not a JSON Pointer: "~" must be followed by 0 or 1"#)
        XCTAssertEqual(
            message("/" + String(repeating: "a", count: 1024), .equals("x")), "the pointer is longer than 1024 bytes")
        XCTAssertEqual(message("/p", .oneOf([])), "the set of values is empty")
        XCTAssertEqual(message("/p", .containsAll([])), "the set of values is empty")
        XCTAssertEqual(message("/p", .containsAny([])), "the set of values is empty")
        for bad in ["01", "1.", ".5", "+1", "0x10", "NaN", "1e", " 1", "1 ", "", "-"] {
            XCTAssertEqual(message("/p", .equals(.number(bad))), "\"\(bad)\" is not a JSON number", bad)
        }
        XCTAssertEqual(
            message("/p", .oneOf(["a", .number("1e100001")])), "1e100001 is out of range (powers of ten up to 100000)")
        XCTAssertNil(message("/p", .equals(.number("1e99999"))))
        XCTAssertNil(message("/p", .equals(.number("0e999999999"))), "zero has no magnitude to bound")
    }

    func testValuesFromJSONAndLiterals() {
        XCTAssertEqual(ClaimValue(.string("a")), .string("a"))
        XCTAssertEqual(ClaimValue(.number("1.5")), .number("1.5"))
        XCTAssertEqual(ClaimValue(.bool(false)), .bool(false))
        XCTAssertNil(ClaimValue(.null))
        XCTAssertNil(ClaimValue(.array([])))
        XCTAssertEqual(1 as ClaimValue, .number("1"))
        XCTAssertEqual(0.5 as ClaimValue, .number("0.5"))
        XCTAssertEqual(1e300 as ClaimValue, .number("1e+300"))
    }
}
