import Foundation
import XCTest

/// `jwtk verify --claim-equals/--claim-one-of/--claim-contains-all/--claim-contains-any POINTER=VALUE`:
/// verdicts (`claim_requirement_failed` for a token that does not grant what is asked, exit 1), how
/// VALUE is typed (JSON true/false/numbers/"strings", anything else a string), sets built by repeating an
/// option with one pointer, and refused options (exit 2, a message naming the option).
final class CLIClaimRequirementTests: XCTestCase, VerifyRunning {
    /// HS256 tokens over the attack suite's HMAC key, valid in every other respect.
    func token(_ members: String) throws -> String {
        try F.mintHS256(
            claims:
                "{\"iss\":\"\(AttackSuite.issuer)\",\"aud\":\"\(AttackSuite.audience)\",\"exp\":\(AttackSuite.now + 600),\(members)}"
        )
    }

    func run(_ options: [String], _ tokens: [String]) throws -> CLIRun {
        try verify(options, jwks: [F.hmacJWKS], tokens: tokens)
    }

    func testEachKindAgainstMetAndUnmetClaims() throws {
        let good = try token(
            #""scope":"openid read write","tenant":"acme","plan":"team","n":1.0,"ok":true,"https://example.com/roles":["admin"],"org":{"id":"o1"}"#
        )
        let bad = try token(
            #""scope":"openid read","tenant":"evil","plan":"free","n":2,"ok":"true","https://example.com/roles":[],"org":{}"#
        )
        let options: [[String]] = [
            ["--claim-contains-all", "/scope=read", "--claim-contains-all", "/scope=write"],
            ["--claim-equals", "/tenant=acme"],
            ["--claim-one-of", "/plan=pro", "--claim-one-of", "/plan=team"],
            ["--claim-equals", "/n=1"],
            ["--claim-equals", "/ok=true"],
            [
                "--claim-contains-any", "/https:~1~1example.com~1roles=admin", "--claim-contains-any",
                "/https:~1~1example.com~1roles=owner",
            ],
            ["--claim-equals", "/org/id=o1"],
        ]
        for option in options {
            assertCodes(try run(option, [good, bad]), [nil, "claim_requirement_failed"], status: 1)
        }
        // All together: every one must hold.
        assertCodes(try run(options.flatMap { $0 }, [good, bad]), [nil, "claim_requirement_failed"], status: 1)
        assertCodes(try run(options.flatMap { $0 }, [good]), [nil])
    }

    func testMessageSaysHowItFailed() throws {
        let r = try run(["--claim-equals", "/tenant=acme"], [try token(#""sub":"u""#), try token(#""tenant":"x""#)])
        XCTAssertEqual(
            r.objects().map { $0["message"] as? String },
            [
                "claim requirement /tenant equals: a claim a requirement names is absent",
                "claim requirement /tenant equals: a claim does not equal its required value",
            ])
    }

    /// true/false, numbers and "quoted" strings are JSON; any other text is a string.
    func testValueTyping() throws {
        let t = try token(#""s":"true","b":true,"n":42,"q":"42","w":"hello world","e":"","x":"a=b""#)
        let cases: [(String, Bool)] = [
            ("/b=true", true), ("/s=true", false), ("/s=\"true\"", true),
            ("/n=42", true), ("/n=42.0", true), ("/n=4.2e1", true), ("/q=42", false), ("/q=\"42\"", true),
            ("/w=hello world", true), ("/e=", true), ("/e=\"\"", true), ("/x=a=b", true), ("/n=\"42\"", false),
        ]
        for (arg, holds) in cases {
            assertCodes(try run(["--claim-equals", arg], [t]), [holds ? nil : "claim_requirement_failed"])
        }
    }

    func testRefusedOptions() throws {
        let t = try token(#""tenant":"acme""#)
        let cases: [([String], String)] = [
            (
                ["--claim-equals", "tenant=acme"],
                "--claim-equals tenant=acme: the claim is an RFC 6901 JSON Pointer and starts with \"/\" (/tenant)"
            ),
            (["--claim-equals", "/tenant"], "--claim-equals /tenant: expected POINTER=VALUE, e.g. /scope=read"),
            (
                ["--claim-one-of", "/a~2=x"],
                "--claim-one-of /a~2: \"/a~2\" is not a JSON Pointer: \"~\" must be followed by 0 or 1"
            ),
            (
                ["--claim-equals", "/a=1", "--claim-equals", "/a=2"],
                "--claim-equals /a is given twice (one value; --claim-one-of for a set)"
            ),
            (["--claim-equals", "/a=\"x"], "--claim-equals /a=\"x: a value starting with \" must be one JSON string"),
            (
                ["--claim-contains-all", "/a=1e999999"],
                "--claim-contains-all /a: 1e999999 is out of range (powers of ten up to 100000)"
            ),
            (
                ["--claim-equals", "=x"],
                "--claim-equals =x: the claim is an RFC 6901 JSON Pointer and starts with \"/\" (/)"
            ),
        ]
        for (options, message) in cases {
            let r = try run(options, [t])
            XCTAssertEqual(r.status, 2, "\(options)")
            XCTAssertTrue(r.stdout.isEmpty, "no verdicts after a configuration error")
            XCTAssertEqual(r.stderr, "jwtk: \(message)\n", "\(options)")
        }
    }
}
