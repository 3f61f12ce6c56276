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

// MARK: - Vector files

enum WycheproofResult: String {
    case valid, invalid, acceptable
}

struct WycheproofVector {
    let tcId: Int
    let comment: String
    let flags: [String]
    let result: WycheproofResult
    let fields: [String: Any]

    func string(_ name: String) -> String {
        guard let s = fields[name] as? String else { fatalError("tcId \(tcId): no string member \"\(name)\"") }
        return s
    }

    func hex(_ name: String) -> [UInt8] { Wycheproof.hex(string(name)) }

    var label: String {
        "tcId \(tcId) (\(comment.isEmpty ? "no comment" : comment)\(flags.isEmpty ? "" : "; flags \(flags.joined(separator: ","))"))"
    }
}

struct WycheproofGroup {
    let index: Int
    let fields: [String: Any]
    let tests: [WycheproofVector]

    func string(_ name: String) -> String? { fields[name] as? String }
    func int(_ name: String) -> Int? { (fields[name] as? NSNumber)?.intValue }
}

struct WycheproofFile {
    let name: String
    let numberOfTests: Int
    let groups: [WycheproofGroup]

    init(_ name: String) throws {
        self.name = name
        guard let root = try Fixtures.json("wycheproof/\(name)") as? [String: Any],
              let count = (root["numberOfTests"] as? NSNumber)?.intValue,
              let groups = root["testGroups"] as? [[String: Any]]
        else { throw WycheproofFileError(name: name) }
        numberOfTests = count
        self.groups = try groups.enumerated().map { index, group in
            guard let tests = group["tests"] as? [[String: Any]] else { throw WycheproofFileError(name: name) }
            return WycheproofGroup(index: index, fields: group, tests: try tests.map { t in
                guard let id = (t["tcId"] as? NSNumber)?.intValue,
                      let resultText = t["result"] as? String,
                      let result = WycheproofResult(rawValue: resultText)
                else { throw WycheproofFileError(name: name) }
                return WycheproofVector(tcId: id, comment: t["comment"] as? String ?? "",
                                        flags: t["flags"] as? [String] ?? [], result: result, fields: t)
            })
        }
    }

    var vectors: [WycheproofVector] { groups.flatMap(\.tests) }

    func vector(_ tcId: Int) -> WycheproofVector? { vectors.first { $0.tcId == tcId } }
}

struct WycheproofFileError: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) is not a Wycheproof vector file" }
}

// MARK: - Expectations

/// What the kernel did with one vector.
enum WycheproofOutcome: CustomStringConvertible {
    case accepted
    case rejected(String)

    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .accepted: "accepted"
        case .rejected(let why): "rejected (\(why))"
        }
    }
}

/// Vectors whose Wycheproof verdict the kernel deliberately does not follow,
/// listed by tcId with the reason. The run fails if a listed vector is
/// missing, carries a different verdict than `wycheproofSays`, or gets an
/// outcome other than `kernelAccepts`.
struct WycheproofDivergence {
    let tcIds: Set<Int>
    let wycheproofSays: WycheproofResult
    let kernelAccepts: Bool
    let why: String

    init(_ tcIds: some Sequence<Int>, wycheproofSays: WycheproofResult, kernelAccepts: Bool, why: String) {
        self.tcIds = Set(tcIds)
        self.wycheproofSays = wycheproofSays
        self.kernelAccepts = kernelAccepts
        self.why = why
    }
}

/// The one behaviour the kernel has for a file's `acceptable` vectors, and why.
struct WycheproofAcceptablePolicy {
    let kernelAccepts: Bool
    let why: String
}

struct WycheproofTally: CustomStringConvertible {
    let file: String
    var checked = 0
    var valid = 0
    var invalid = 0
    var acceptable = 0
    var diverging = 0
    var mismatches = 0

    var description: String {
        "\(file): \(checked) vectors checked (\(valid) valid, \(invalid) invalid, \(acceptable) acceptable), "
            + "\(diverging) listed divergences, \(mismatches) mismatches"
    }
}

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
                XCTAssertTrue(d.tcIds.isDisjoint(with: e.tcIds), "\(file.name): a tcId is listed in two divergences", file: sourceFile, line: line)
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
                    XCTAssertEqual(vector.result, divergences[d].wycheproofSays,
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
                            XCTFail("\(file.name) \(vector.label): acceptable vector but the test pins no behaviour for them",
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
                    XCTFail("\(file.name) \(vector.label): expected the kernel to \(expectAccept ? "accept" : "reject") [\(basis)], but it \(outcome)",
                            file: sourceFile, line: line)
                }
            }
        }

        XCTAssertEqual(tally.checked, file.numberOfTests, "\(file.name): vectors run vs numberOfTests", file: sourceFile, line: line)
        XCTAssertEqual(tally.checked, expectedCount, "\(file.name): vectors run vs the count this test expects", file: sourceFile, line: line)
        XCTAssertGreaterThan(tally.checked, 0, file: sourceFile, line: line)
        for (i, d) in divergences.enumerated() {
            XCTAssertEqual(seenDivergent[i], d.tcIds, "\(file.name): listed divergence not found in the file: \(d.why)", file: sourceFile, line: line)
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

// MARK: - Primitive-level verification

enum WycheproofPrimitive {
    /// The cryptographic check exactly as the JWS hot path runs it: this
    /// thread's prepared-context cache (so contexts are reused across
    /// vectors, as they are across tokens), after the caller's
    /// key-may-verify-alg check. Also run with a fresh context cache; the
    /// two must agree, or a reused context carries state between calls.
    static func verify(_ alg: JWTAlgorithm, key: VerificationKey, message: [UInt8], signature: [UInt8],
                       label: @autoclosure () -> String) -> WycheproofOutcome {
        guard key.algorithms.contains(alg) else {
            return .rejected("key \(key) may not verify \(alg.rawValue)")
        }
        // The JWS path always passes real pointers (decoded segments live in
        // scratch memory), even for an empty segment; so does this.
        let ok = withRealPointer(message) { m in
            withRealPointer(signature) { s in
                ThreadScratch.withBuffer(count: 0) { (_, contexts) in
                    SignatureCheck.verify(alg, key: key, signingInput: m, signature: s, contexts: contexts)
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
        guard let der = group.string("publicKeyDer") else { return .failure(KeyError(.notAKeySet, "group has no publicKeyDer")) }
        do { return .success(try VerificationKey(spkiDER: Wycheproof.hex(der), kid: "wycheproof")) } catch { return .failure(error) }
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
                outcome = verify(alg, key: key, message: message, signature: signature, label: "\(file.name) \(vector.label)")
            }
            if let jwkKey {
                let viaJWK = verify(alg, key: jwkKey, message: message, signature: signature, label: "\(file.name) \(vector.label) (JWK key)")
                XCTAssertEqual(viaJWK.isAccepted, outcome.isAccepted,
                               "\(file.name) \(vector.label): key from DER \(outcome), key from JWK \(viaJWK)")
            }
            return outcome
        }
    }
}
