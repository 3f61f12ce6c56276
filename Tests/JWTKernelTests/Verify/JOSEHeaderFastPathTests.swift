import XCTest

@_spi(Internals) @testable import JWTKernel

/// The common-shape header reader (`JOSEHeader+CommonShape.swift`) against the full
/// strict parser: on every header generated here, `JOSEHeader.parse` gives what the
/// full parser gives (members or error code), and the fast reader declines or agrees.
final class JOSEHeaderFastPathTests: XCTestCase {
    private func disagreement(_ header: String) -> String? {
        Array(header.utf8).withUnsafeBytes { JOSEHeaderFastPathCheck.disagreement($0) }
    }

    private func takesFastPath(_ header: String) -> Bool {
        Array(header.utf8).withUnsafeBytes { JOSEHeaderFastPathCheck.takesCommonShape($0) }
    }

    func testCommonHeadersTakeTheFastPathAndAgree() throws {
        let common = [
            #"{"alg":"HS256","typ":"JWT"}"#, #"{"alg":"RS256","kid":"k1","typ":"JWT"}"#,
            #"{"typ":"JWT","alg":"ES256","kid":"abc-DEF_123"}"#, #"{"kid":"","alg":"EdDSA"}"#,
            #"{"alg":"Ed25519"}"#, #"{"alg":"PS512","kid":"a b:c/d?e=f"}"#,
        ]
        for h in common {
            XCTAssertTrue(takesFastPath(h), h)
            XCTAssertNil(disagreement(h), h)
        }
        // Every algorithm name, through the fast path.
        for alg in JWTAlgorithm.allCases {
            let h = #"{"alg":"\#(alg.rawValue)","kid":"k"}"#
            XCTAssertTrue(takesFastPath(h), h)
            let parsed = try Array(h.utf8).withUnsafeBytes { raw in
                try Result { () throws(JWTError) in try JOSEHeader.parse(raw) }.get()
            }
            XCTAssertEqual(parsed.alg, alg)
        }
    }

    func testEverythingElseFallsBackToTheFullParser() {
        let others = [
            #"{"alg":"none"}"#, #"{"alg":"NONE","kid":"k"}"#, #"{"alg":"HS257"}"#, #"{"alg":""}"#,
            #"{"alg":"HS256","alg":"HS256"}"#, #"{"alg":"HS256","kid":"a","kid":"b"}"#,
            #"{"alg":"HS256","crit":["b64"]}"#, #"{"alg":"HS256","b64":false}"#, #"{"alg":"HS256","b64":true}"#,
            #"{ "alg":"HS256"}"#, #"{"alg":"HS256" }"#, #"{"alg":"HS256"} "#, #"{"alg":"HS256",}"#,
            #"{"alg":"HS\u0032\u00356"}"#, #"{"al\u0067":"HS256"}"#, #"{"alg":"HS256","kid":"\u00e9"}"#,
            #"{"alg":"HS256","kid":"é"}"#, "{\"alg\":\"HS256\",\"kid\":\"\u{01}\"}", #"{"alg":"HS256","kid":"a\"b"}"#,
            #"{"alg":"HS256","kid":1}"#, #"{"alg":"HS256","typ":null}"#, #"{"kid":"k"}"#, #"{"alg":"HS256""#,
            #"{"alg":"HS256"}}"#, #"{"alg":"HS256","cty":"JWT"}"#, #"{"alg":"HS256","x5u":"https://x"}"#,
            #"["alg","HS256"]"#, #"{"alg":HS256}"#, #"{"alg":"HS256"]"#, #"{"alg":"HS256","kid":"k"#,
        ]
        for h in others {
            XCTAssertFalse(takesFastPath(h), h)
            XCTAssertNil(disagreement(h), h)
        }
    }

    /// Random headers from pieces of the common shape and of everything around it,
    /// then every truncation and single-byte change of some of them.
    func testGeneratedHeadersAgree() {
        var rng = SplitMix(seed: 0x6a77_746b)
        let names = ["alg", "kid", "typ", "crit", "b64", "cty", "al\\u0067", "x", "", "kid ", "ALG"]
        let values = [
            "\"HS256\"", "\"RS256\"", "\"ES384\"", "\"EdDSA\"", "\"none\"", "\"\"", "\"k1\"", "\"JWT\"", "\"a\\\"b\"",
            "\"\\u0041\"", "\"é\"", "\"\u{7F}\"", "1", "true", "false", "null", "[\"b64\"]", "{}", "\"HS2\\u00356\"",
        ]
        let gaps = ["", "", "", "", " ", "\n"]
        var tested = 0, fast = 0
        for round in 0..<20_000 {
            // Every other header stays near the common shape (its names, string values, no gaps).
            let near = round % 2 == 0
            func pick(_ pool: [String], _ nearCount: Int) -> String {
                pool[Int(rng.next() % UInt64(near ? nearCount : pool.count))]
            }
            var h = "{"
            let members = Int(rng.next() % 5)
            for m in 0..<members {
                if m > 0 { h += "," }
                h += near ? "" : pick(gaps, gaps.count)
                h += "\"\(pick(names, 3))\":" + pick(values, 8)
            }
            h += (near ? "" : pick(gaps, gaps.count)) + "}"
            var bytes = Array(h.utf8)
            check(bytes, &tested, &fast)
            if rng.next() % 8 == 0, !bytes.isEmpty {
                let at = Int(rng.next() % UInt64(bytes.count))
                check(Array(bytes[..<at]), &tested, &fast)
                bytes[at] = UInt8(truncatingIfNeeded: rng.next())
                check(bytes, &tested, &fast)
            }
        }
        // The generator must reach the fast path often, or the agreement above says little.
        XCTAssertGreaterThan(fast, tested / 50, "\(fast) of \(tested) generated headers took the fast path")
    }

    private func check(_ bytes: [UInt8], _ tested: inout Int, _ fast: inout Int) {
        bytes.withUnsafeBytes { raw in
            tested += 1
            if JOSEHeaderFastPathCheck.takesCommonShape(raw) { fast += 1 }
            if let d = JOSEHeaderFastPathCheck.disagreement(raw) {
                XCTFail("\(d): \(String(decoding: bytes, as: UTF8.self))")
            }
        }
    }
}

/// A small deterministic generator (SplitMix64), so a failure reproduces.
private struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
