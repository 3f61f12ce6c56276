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
}
