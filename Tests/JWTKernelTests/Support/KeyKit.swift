import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Helpers shared by the RFC vector, real-token and key-set tests. Fixture
/// files are read with Foundation (not the kernel's own JSON parser), so a
/// parser bug cannot make a fixture look different from what it is.
enum KeyKit {
    struct FixtureError: Error, CustomStringConvertible {
        let description: String
    }

    /// A fixture JSON object.
    static func object(_ relativePath: String) throws -> [String: Any] {
        guard let object = try Fixtures.json(relativePath) as? [String: Any] else {
            throw FixtureError(description: "\(relativePath) is not a JSON object")
        }
        return object
    }

    /// JSON text for a Foundation JSON value (members sorted, `/` not escaped).
    static func bytes(_ value: Any) throws -> [UInt8] {
        Array(try JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes]))
    }

    static func key(_ jwk: Any) throws -> VerificationKey {
        try VerificationKey(jwkJSON: try bytes(jwk))
    }

    /// A key set from a list of JWKs, through `JWKSet(json:)` as a JWKS document.
    static func set(_ jwks: [Any]) throws -> JWKSet {
        try JWKSet(json: try bytes(["keys": jwks]))
    }

    /// The error a key is refused with, or a test failure when it loads.
    static func refusal(_ jwk: Any, file: StaticString = #filePath, line: UInt = #line) -> KeyError? {
        do {
            let key = try self.key(jwk)
            XCTFail("key loaded but should be refused: \(key)", file: file, line: line)
            return nil
        } catch let error as KeyError {
            return error
        } catch {
            XCTFail("unexpected error \(error)", file: file, line: line)
            return nil
        }
    }

    /// Asserts that `body` throws a `JWTError` with `code`.
    static func expect(
        _ code: JWTErrorCode, _ message: @autoclosure () -> String = "",
        file: StaticString = #filePath, line: UInt = #line,
        _ body: () throws -> Void
    ) {
        do {
            try body()
            XCTFail("expected \(code.name) but the token was accepted. \(message())", file: file, line: line)
        } catch let error as JWTError {
            XCTAssertEqual(error.code, code, "got \(error). \(message())", file: file, line: line)
        } catch {
            XCTFail("expected JWTError \(code.name), got \(error). \(message())", file: file, line: line)
        }
    }

    // MARK: Token surgery (independent of the kernel's Base64URL)

    static func base64URLDecode(_ text: Substring) -> [UInt8]? {
        var s = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while s.count % 4 != 0 { s += "=" }
        return Data(base64Encoded: s).map(Array.init)
    }

    static func base64URLEncode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The token with one bit of its decoded signature flipped, re-encoded
    /// canonically, so the only thing wrong with it is the signature.
    static func flippingSignatureBit(_ token: String, byte: Int? = nil, bit: UInt8 = 0x01) -> String {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        precondition(parts.count == 3, "not a compact JWS")
        var signature = base64URLDecode(parts[2])!
        signature[byte ?? signature.count / 2] ^= bit
        return "\(parts[0]).\(parts[1]).\(base64URLEncode(signature))"
    }

    /// Standard-base64 DER wrapped as a PEM block (64-character lines).
    static func pem(_ label: String, base64 body: String) -> String {
        var lines: [Substring] = []
        var rest = Substring(body)
        while !rest.isEmpty {
            lines.append(rest.prefix(64))
            rest = rest.dropFirst(64)
        }
        return "-----BEGIN \(label)-----\n" + lines.joined(separator: "\n") + "\n-----END \(label)-----\n"
    }
}
