import Foundation
import XCTest

/// `jwtk verify` with tokens on standard input: every input line gives exactly
/// one output line, in order, so `paste inputs results` lines up. Only the line
/// ending (`\n`, or `\r\n`) is removed; the same bytes get the same verdict as
/// when given as an argument.
final class CLIStdinTests: XCTestCase, VerifyRunning {
    // MARK: One line out per line in

    func testBlankLineIsAMalformedToken() throws {
        let a = try F.token("valid_ES256"), b = try F.token("valid_RS256")
        let run = try verify(stdin: Data("\(a)\n\n\(b)\n".utf8))
        assertCodes(run, [nil, "malformed", nil])
        XCTAssertEqual(try verify(stdin: Data("\n".utf8)).codes(), ["malformed"], "a lone newline is one empty token")
        XCTAssertEqual(try verify(stdin: Data("\n\n\n".utf8)).codes(), ["malformed", "malformed", "malformed"])
    }

    func testCRLFLineEndings() throws {
        let a = try F.token("valid_ES256"), b = try F.token("valid_EdDSA")
        assertCodes(try verify(stdin: Data("\(a)\r\n\(b)\r\n".utf8)), [nil, nil])
        // An empty Windows line is an empty token, like an empty Unix line.
        assertCodes(try verify(stdin: Data("\(a)\r\n\r\n\(b)\r\n".utf8)), [nil, "malformed", nil])
        // Mixed endings in one file.
        assertCodes(try verify(stdin: Data("\(a)\n\(b)\r\n\(a)\n".utf8)), [nil, nil, nil])
    }

    func testSpacesAndTabsAreKept() throws {
        let a = try F.token("valid_ES256")
        let padded = [" \(a)", "\(a) ", "\t\(a)", "\(a)\t", "\(a) \r", " "]
        let run = try verify(stdin: Data((padded.joined(separator: "\n") + "\n").utf8))
        assertCodes(run, Array(repeating: "malformed", count: padded.count))
    }

    func testFinalLineWithoutNewlineCounts() throws {
        let a = try F.token("valid_ES256"), b = try F.token("exp_long_ago")
        assertCodes(try verify(stdin: Data(a.utf8)), [nil])
        assertCodes(try verify(stdin: Data("\(a)\n\(b)".utf8)), [nil, "expired"])
    }

    /// A `\r` is removed only right before `\n`: elsewhere, including at the very
    /// end of input without a newline, it is a byte of the token.
    func testCarriageReturnElsewhereIsKept() throws {
        let a = try F.token("valid_ES256")
        assertCodes(try verify(stdin: Data("\(a)\r".utf8)), ["malformed"])
        assertCodes(try verify(stdin: Data("\r\(a)\n".utf8)), ["malformed"])
        assertCodes(try verify(stdin: Data("\(a)\r\r\n".utf8)), ["malformed"])
    }

    func testEmptyStdinPrintsNothing() throws {
        let run = try verify(stdin: Data())
        XCTAssertEqual(run.lines, [])
        XCTAssertEqual(run.status, 0, run.stderr)
    }

    /// The `paste` promise on a messy file: as many result lines as input lines,
    /// each result at its input's position.
    func testResultsLineUpWithInputLines() throws {
        let valid = try F.token("valid_ES256"), forged = try F.token("RS256_signed_by_attacker")
        let lines = [valid, "", forged, " ", valid + "\r", "\t", "", valid, "not a token", valid]
        let expected: [String?] = [
            nil, "malformed", "bad_signature", "malformed", nil, "malformed", "malformed", nil, "malformed", nil,
        ]
        let input = lines.joined(separator: "\n")  // the last line has no newline
        assertCodes(try verify(stdin: Data(input.utf8)), expected)
    }

    // MARK: Same bytes, same verdict

    /// Tokens with surrounding whitespace give byte-identical result lines on
    /// stdin and as arguments.
    func testArgumentAndStdinGiveTheSameResult() throws {
        let a = try F.token("valid_ES256")
        let tokens = [a, " \(a)", "\(a) ", "\t\(a)", "\(a)\t", "", " ", "\(a)\r", try F.token("exp_long_ago")]
        // "\(a)\r" goes last on stdin with no newline after it, so its `\r` is not a line ending.
        let stdinOrder = tokens.filter { !$0.hasSuffix("\r") } + tokens.filter { $0.hasSuffix("\r") }
        let viaStdin = try verify(stdin: Data(stdinOrder.joined(separator: "\n").utf8))
        let viaArgs = try verify(tokens: stdinOrder)
        XCTAssertEqual(viaStdin.lines.count, stdinOrder.count, viaStdin.stderr)
        XCTAssertEqual(viaStdin.lines, viaArgs.lines)
        XCTAssertEqual(viaStdin.status, viaArgs.status)
        XCTAssertEqual(viaStdin.codes().filter { $0 == nil }.count, 1, "only the unpadded token is valid")
    }

    /// A token that starts with `-` is an option to the argument parser unless `--` comes first.
    func testDashTokenAfterDoubleDashGetsTheStdinVerdict() throws {
        let tokens = ["-abc", "-\(try F.token("valid_ES256"))"]
        let viaStdin = try verify(stdin: Data(tokens.joined(separator: "\n").utf8))
        let viaArgs = try verify(["--"], tokens: tokens)
        assertCodes(viaStdin, ["malformed", "malformed"])
        XCTAssertEqual(viaStdin.lines, viaArgs.lines)
    }

    /// Every fixture case that uses the default policy must end through the CLI as
    /// it does in the library (the CLI adds nothing and loses nothing), and give the
    /// same line on stdin as as an argument. A token holding `\n`, or ending in
    /// `\r`, cannot be one stdin line: those go as arguments only.
    func testAttackSuiteThroughStdinAndArguments() throws {
        let cases = try AttackSuite.cases().filter { $0.policy == nil }
        var checked = 0
        for set in ["public", "hmac"] {
            let selected = cases.filter { $0.jwks == set }
            // Checked on bytes: as Characters, "\r\n" is one grapheme that neither "\r" nor "\n" equals.
            func lineSafe(_ c: AttackCase) -> Bool { !c.token.utf8.contains(0x0A) && c.token.utf8.last != 0x0D }
            let viaStdin = selected.filter(lineSafe)
            let viaArgsOnly = selected.filter { !lineSafe($0) }
            let jwks = [set == "public" ? F.publicJWKS : F.hmacJWKS]
            let stdinRun = try verify(
                jwks: jwks, stdin: Data((viaStdin.map(\.token).joined(separator: "\n") + "\n").utf8))
            let sameAsArgs = try verify(jwks: jwks, tokens: viaStdin.map(\.token))
            let argsRun = try verify(jwks: jwks, tokens: viaArgsOnly.map(\.token))
            XCTAssertEqual(stdinRun.lines, sameAsArgs.lines, "stdin and arguments disagree (\(set))")
            for (run, batch) in [(stdinRun, viaStdin), (argsRun, viaArgsOnly)] {
                let got = run.codes()
                XCTAssertEqual(got.count, batch.count, "one line per token (\(set))")
                for (c, code) in zip(batch, got) {
                    if c.expect_valid {
                        XCTAssertNil(code, "FALSE REJECT via CLI: \(c.name)")
                    } else if let code {
                        XCTAssertTrue(
                            c.acceptableCodes.contains(code),
                            "\(c.name): CLI said \(code), expected \(c.acceptableCodes.sorted())")
                    } else {
                        XCTFail("FALSE ACCEPT via CLI: \(c.name)")
                    }
                }
                XCTAssertEqual(run.status, batch.allSatisfy(\.expect_valid) ? 0 : 1)
                checked += min(got.count, batch.count)
            }
        }
        XCTAssertGreaterThan(checked, 350)
    }

    // MARK: Size limit and volume

    func testLineOverTheSizeLimitIsTooLarge() throws {
        let valid = try F.token("valid_HS256")
        let justOver = String(repeating: "A", count: F.defaultMaxTokenSize + 1)
        let huge = String(repeating: "B", count: 1 << 20)
        let exact = try F.token("size_exactly_limit")
        XCTAssertEqual(exact.utf8.count, F.defaultMaxTokenSize)
        let input = [valid, justOver, huge, exact, valid].joined(separator: "\n") + "\n"
        assertCodes(try verify(jwks: [F.hmacJWKS], stdin: Data(input.utf8)), [nil, "too_large", "too_large", nil, nil])
    }

    /// The limit is on the token: a CRLF ending does not count against it.
    func testLimitCountsTheTokenNotTheLineEnding() throws {
        let exact = try F.token("size_exactly_limit")
        let over = String(repeating: "C", count: F.defaultMaxTokenSize + 1)
        let input = "\(exact)\r\n\(over)\r\n\(exact)\r\n"
        assertCodes(try verify(jwks: [F.hmacJWKS], stdin: Data(input.utf8)), [nil, "too_large", nil])
    }

    /// jwtk reads 64 KiB at a time: lines longer than a read, and a CRLF split between two
    /// reads, are still one line each.
    func testLinesAcrossReadBoundaries() throws {
        let valid = try F.token("valid_HS256")
        let long = String(repeating: "A", count: 70_000)
        // The filler line puts the `\r` after the first token at byte 65,535 and its `\n` at 65,536.
        let filler = String(repeating: "B", count: 65_534 - valid.utf8.count)
        let input = "\(filler)\n\(valid)\r\n\(valid)\n\(long)\r\n\(valid)"
        XCTAssertEqual(Array(input.utf8)[65_535...65_536], [0x0D, 0x0A])
        let run = try verify(["--max-token-size", "100000"], jwks: [F.hmacJWKS], stdin: Data(input.utf8))
        assertCodes(run, ["malformed", nil, nil, "malformed", nil])
    }

    func testMaxTokenSizeOption() throws {
        let token = try F.token("valid_HS256")
        let n = token.utf8.count
        assertCodes(try verify(["--max-token-size", String(n)], jwks: [F.hmacJWKS], tokens: [token]), [nil])
        assertCodes(
            try verify(["--max-token-size", String(n - 1)], jwks: [F.hmacJWKS], tokens: [token]), ["too_large"])
        assertCodes(
            try verify(["--max-token-size", String(n - 1)], jwks: [F.hmacJWKS], stdin: Data(token.utf8)), ["too_large"])
    }

    /// 100,000 lines through stdin in one process: it completes, one line out per
    /// line in, in order (constant memory is the reader's design; here we check it finishes).
    func testHundredThousandLinesOnStdin() throws {
        let valid = try F.token("valid_HS256"), invalid = try F.token("HS256_tag_truncated_16")
        let count = 100_000
        var input = Data()
        input.reserveCapacity(count * (valid.utf8.count + 1))
        let validLine = Data((valid + "\n").utf8), invalidLine = Data((invalid + "\n").utf8)
        for i in 0..<count { input.append(i % 1000 == 999 ? invalidLine : validLine) }
        let started = Date()
        let run = try verify(jwks: [F.hmacJWKS], stdin: input)
        let elapsed = Date().timeIntervalSince(started)
        XCTAssertEqual(run.status, 1, run.stderr)
        // Count and spot-check without parsing 100k JSON objects.
        var lines = 0, mismatches = 0
        for line in run.stdout.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        where !line.isEmpty {
            let isValid = line.starts(with: Array("{\"valid\":true".utf8))
            if isValid != (lines % 1000 != 999) { mismatches += 1 }
            lines += 1
        }
        XCTAssertEqual(lines, count)
        XCTAssertEqual(mismatches, 0, "results out of input order")
        print("jwtk: \(count) stdin lines in \(String(format: "%.2f", elapsed)) s")
    }

}
