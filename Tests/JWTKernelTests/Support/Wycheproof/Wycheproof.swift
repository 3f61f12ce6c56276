import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

// Harness for the Project Wycheproof vectors bundled under
// Fixtures/wycheproof (Apache License 2.0, see the LICENSE file there).
//
// Every vector in a file is run and its outcome compared with what the
// kernel is expected to do, which is the Wycheproof verdict except where a
// test lists the vector explicitly as a `WycheproofDivergence` (with the
// reason) or where an `acceptable` verdict is pinned to one documented
// behaviour. A mismatch fails with the file name and tcId. The number of
// vectors run is asserted against both the file's `numberOfTests` and a
// count written into the test, so a truncated or empty file cannot pass.

enum Wycheproof {
    /// Runs every vector of `file`. `prepare` is called once per group (to
    /// load keys) and returns the per-vector check.
    @discardableResult
    static func run(
        _ file: WycheproofFile,
        expectedCount: Int,
        acceptable: WycheproofAcceptablePolicy? = nil,
        divergences: [WycheproofDivergence] = [],
        sourceFile: StaticString = #filePath, line: UInt = #line,
        prepare: (WycheproofGroup) -> (WycheproofVector) -> WycheproofOutcome
    ) -> WycheproofTally {
        var tally = WycheproofTally(file: file.name)
        var seenDivergent: [Set<Int>] = divergences.map { _ in [] }
        for (i, d) in divergences.enumerated() {
            for (j, e) in divergences.enumerated() where j > i {
                XCTAssertTrue(
                    d.tcIds.isDisjoint(with: e.tcIds), "\(file.name): a tcId is listed in two divergences",
                    file: sourceFile, line: line)
            }
        }

        for group in file.groups {
            let check = prepare(group)
            for vector in group.tests {
                tally.checked += 1
                switch vector.result {
                case .valid: tally.valid += 1
                case .invalid: tally.invalid += 1
                case .acceptable: tally.acceptable += 1
                }

                let expectAccept: Bool
                let basis: String
                if let d = divergences.firstIndex(where: { $0.tcIds.contains(vector.tcId) }) {
                    seenDivergent[d].insert(vector.tcId)
                    tally.diverging += 1
                    XCTAssertEqual(
                        vector.result, divergences[d].wycheproofSays,
                        "\(file.name) \(vector.label): listed as a divergence from a \(divergences[d].wycheproofSays) verdict",
                        file: sourceFile, line: line)
                    expectAccept = divergences[d].kernelAccepts
                    basis = "listed divergence: \(divergences[d].why)"
                } else {
                    switch vector.result {
                    case .valid:
                        expectAccept = true
                        basis = "Wycheproof: valid"
                    case .invalid:
                        expectAccept = false
                        basis = "Wycheproof: invalid"
                    case .acceptable:
                        guard let acceptable else {
                            XCTFail(
                                "\(file.name) \(vector.label): acceptable vector but the test pins no behaviour for them",
                                file: sourceFile, line: line)
                            tally.mismatches += 1
                            continue
                        }
                        expectAccept = acceptable.kernelAccepts
                        basis = "acceptable, pinned: \(acceptable.why)"
                    }
                }

                let outcome = check(vector)
                if outcome.isAccepted != expectAccept {
                    tally.mismatches += 1
                    XCTFail(
                        "\(file.name) \(vector.label): expected the kernel to \(expectAccept ? "accept" : "reject") [\(basis)], but it \(outcome)",
                        file: sourceFile, line: line)
                }
            }
        }

        XCTAssertEqual(
            tally.checked, file.numberOfTests, "\(file.name): vectors run vs numberOfTests", file: sourceFile,
            line: line)
        XCTAssertEqual(
            tally.checked, expectedCount, "\(file.name): vectors run vs the count this test expects", file: sourceFile,
            line: line)
        XCTAssertGreaterThan(tally.checked, 0, file: sourceFile, line: line)
        for (i, d) in divergences.enumerated() {
            XCTAssertEqual(
                seenDivergent[i], d.tcIds, "\(file.name): listed divergence not found in the file: \(d.why)",
                file: sourceFile, line: line)
        }
        print("Wycheproof \(tally)")
        return tally
    }

    static func hex(_ text: String) -> [UInt8] {
        precondition(text.utf8.count % 2 == 0, "odd-length hex")
        var out: [UInt8] = []
        out.reserveCapacity(text.utf8.count / 2)
        var high: UInt8?
        for c in text.utf8 {
            let v: UInt8
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): v = c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): v = c - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): v = c - UInt8(ascii: "A") + 10
            default: preconditionFailure("not hex")
            }
            if let h = high { out.append(h << 4 | v); high = nil } else { high = v }
        }
        return out
    }

    /// JSON text for a JWK / JWK Set taken from a vector file.
    static func jsonBytes(_ object: Any) -> [UInt8] {
        // Sorted keys keep failure messages reproducible; the kernel reads escapes such as `\/`.
        Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }
}
