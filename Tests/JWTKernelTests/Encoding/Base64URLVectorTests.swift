import XCTest

@_spi(Internals) @testable import JWTKernel

/// The vectorised base64url decoder against the scalar one: same verdict and
/// same bytes for every input, valid or not, at every length around the
/// vector block sizes (16 and 32 characters) and the scalar-tail boundary.
final class Base64URLVectorTests: XCTestCase {
    let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    func decode(_ text: [UInt8], vectorized: Bool) -> [UInt8]? {
        guard let n = Base64URL.decodedCount(text.count) else { return nil }
        var out = [UInt8](repeating: 0xEE, count: max(n, 1))
        let written = text.withUnsafeBytes { src in
            out.withUnsafeMutableBytes { Base64URL.decode(src, into: $0.baseAddress!, vectorized: vectorized) }
        }
        return written.map { Array(out.prefix($0)) }
    }

    func testThisMachineHasAVectorPath() throws {
        #if arch(x86_64)
        XCTAssertGreaterThan(Base64URL.vectorLevel, 0, "x86_64 without SSSE3: the vector path would go untested")
        #else
        throw XCTSkip("no vector path on this architecture")
        #endif
    }

    func testValidInputsDecodeIdentically() {
        var rng = SystemRandomNumberGenerator()
        for length in 0...300 where Base64URL.decodedCount(length) != nil {
            for _ in 0..<20 {
                var text = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
                // Make the last character canonical half the time, so both verdicts are exercised.
                if length % 4 != 0, Bool.random(using: &rng) { text[length - 1] = UInt8(ascii: "A") }
                XCTAssertEqual(
                    decode(text, vectorized: true), decode(text, vectorized: false),
                    String(decoding: text, as: UTF8.self))
            }
        }
    }

    func testEveryInvalidByteAtEveryPositionIsRefusedByBoth() {
        let valid = Array(repeating: UInt8(ascii: "Q"), count: 96)
        XCTAssertNotNil(decode(valid, vectorized: true))
        for position in 0..<valid.count {
            for byte in UInt8.min...UInt8.max where !alphabet.contains(byte) {
                var text = valid
                text[position] = byte
                XCTAssertNil(decode(text, vectorized: true), "byte \(byte) at \(position)")
                XCTAssertNil(decode(text, vectorized: false), "byte \(byte) at \(position)")
            }
        }
    }

    func testBytesMatchAnIndependentEncoder() {
        var rng = SystemRandomNumberGenerator()
        for length in [0, 1, 2, 3, 12, 24, 33, 34, 35, 36, 100, 850, 4096] {
            let bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let text = Array(Base64URL.encode(bytes).utf8)
            XCTAssertEqual(decode(text, vectorized: true), bytes, "\(length) bytes")
        }
    }

    /// The three-segment decode (one vector dispatch, as the verifier uses it) against three
    /// scalar decodes: same verdict and, when all three are valid, the same bytes, for valid and
    /// invalid segments of every length class around the block sizes, empty ones included.
    func testThreeSegmentDecodeAgreesWithThreeScalarDecodes() {
        var rng = SystemRandomNumberGenerator()
        let lengths = [0, 2, 3, 4, 10, 11, 15, 16, 17, 23, 24, 25, 31, 32, 43, 44, 45, 63, 64, 86, 342, 1134]
        for _ in 0..<3000 {
            let parts = (0..<3).map { _ -> [UInt8] in
                let length = lengths.randomElement(using: &rng)!
                var text = (0..<length).map { _ in alphabet.randomElement(using: &rng)! }
                if length > 0, Int.random(in: 0..<6, using: &rng) == 0 {
                    // One byte of any value anywhere: outside the alphabet most of the time.
                    text[Int.random(in: 0..<length, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
                }
                return text
            }
            let scalar = parts.map { decode($0, vectorized: false) }
            let outs = parts.map { [UInt8](repeating: 0xEE, count: max(Base64URL.decodedCount($0.count) ?? 0, 1)) }
            var a = outs[0], b = outs[1], c = outs[2]
            let ok = parts[0].withUnsafeBytes { pa in
                parts[1].withUnsafeBytes { pb in
                    parts[2].withUnsafeBytes { pc in
                        a.withUnsafeMutableBytes { da in
                            b.withUnsafeMutableBytes { db in
                                c.withUnsafeMutableBytes { dc in
                                    Base64URL.decode(
                                        pa, into: da.baseAddress!, pb, into: db.baseAddress!, pc, into: dc.baseAddress!)
                                }
                            }
                        }
                    }
                }
            }
            let described = parts.map { String(decoding: $0, as: UTF8.self) }
            XCTAssertEqual(ok, !scalar.contains(where: { $0 == nil }), "\(described)")
            if ok {
                XCTAssertEqual(Array(a.prefix(scalar[0]!.count)), scalar[0]!, "\(described)")
                XCTAssertEqual(Array(b.prefix(scalar[1]!.count)), scalar[1]!, "\(described)")
                XCTAssertEqual(Array(c.prefix(scalar[2]!.count)), scalar[2]!, "\(described)")
            }
        }
    }
}
