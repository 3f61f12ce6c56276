import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// A JWK whose `x5c` first certificate holds another public key than its `n`/`e`, `x`/`y` or `x` is
/// refused (RFC 7517 §4.7: the certificate's key MUST match the JWK's), naming the key. Keys and
/// self-signed certificates are made here by the `openssl` command.
final class X5CConsistencyTests: XCTestCase {
    var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-x5c-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws { try? FileManager.default.removeItem(at: directory) }

    @discardableResult
    func openssl(_ args: [String]) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + args
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: "openssl", code: Int(process.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: String(decoding: message, as: UTF8.self)])
        }
        return data
    }

    /// A new private key of `kind` ("rsa", "p256", "ed25519"): its file.
    func key(_ kind: String, _ name: String) throws -> String {
        let path = directory.appendingPathComponent("\(name).pem").path
        switch kind {
        case "rsa": try openssl(["genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", path])
        case "p256": try openssl(["genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", path])
        default: try openssl(["genpkey", "-algorithm", "ED25519", "-out", path])
        }
        return path
    }

    /// A self-signed certificate of the key, as an `x5c` entry (standard base64 DER).
    func certificate(_ key: String) throws -> String {
        try openssl([
            "req", "-x509", "-new", "-key", key, "-subj", "/CN=jwt-kernel x5c test", "-days", "2", "-outform", "DER",
        ])
        .base64EncodedString()
    }

    /// The key's SubjectPublicKeyInfo DER.
    func spki(_ key: String) throws -> [UInt8] {
        Array(try openssl(["pkey", "-in", key, "-pubout", "-outform", "DER"]))
    }

    /// The JWK members of the key's public part.
    func members(_ kind: String, _ key: String) throws -> String {
        switch kind {
        case "rsa":
            let text = String(decoding: try openssl(["rsa", "-in", key, "-modulus", "-noout"]), as: UTF8.self)
            let hex = Array(text.trimmingCharacters(in: .whitespacesAndNewlines).dropFirst("Modulus=".count))
            let n = stride(from: 0, to: hex.count, by: 2).map { UInt8(String(hex[$0..<$0 + 2]), radix: 16)! }
            return #""kty":"RSA","n":"\#(Base64URL.encode(n))","e":"AQAB""#
        case "p256":
            let point = try spki(key).suffix(64)  // 0x04 || x || y ends the SPKI
            return
                #""kty":"EC","crv":"P-256","x":"\#(Base64URL.encode(Array(point.prefix(32))))","y":"\#(Base64URL.encode(Array(point.suffix(32))))""#
        default:
            return #""kty":"OKP","crv":"Ed25519","x":"\#(Base64URL.encode(Array(try spki(key).suffix(32))))""#
        }
    }

    func testTheCertificatesKeyMustBeTheJWKsKey() throws {
        for kind in ["rsa", "p256", "ed25519"] {
            let a = try key(kind, "\(kind)-a"), b = try key(kind, "\(kind)-b")
            let certA = try certificate(a)
            let same = #"{\#(try members(kind, a)),"kid":"same","x5c":["\#(certA)"]}"#
            let other = #"{\#(try members(kind, b)),"kid":"other","x5c":["\#(certA)"]}"#
            let set = try JWKSet(json: Array(#"{"keys":[\#(same),\#(other)]}"#.utf8))
            XCTAssertEqual(set.keys.map(\.kid), ["same"], kind)
            let refusal = try XCTUnwrap(set.rejected.first, kind)
            XCTAssertEqual(refusal.code, .invalidCertificate, kind)
            XCTAssertEqual(refusal.kid, "other", kind)
            XCTAssertTrue(refusal.reason.contains("x5c"), refusal.reason)
            // An RSA or EC certificate alone still gives the key (no n/e or x/y beside it).
            if kind != "ed25519" {
                let alone = #"{"kty":"\#(kind == "rsa" ? "RSA" : "EC")","kid":"c","x5c":["\#(certA)"]}"#
                XCTAssertNoThrow(try VerificationKey(jwkJSON: Array(alone.utf8)), kind)
            }
        }
    }

    func testACertificateThatDoesNotParseBesideTheMembersIsRefused() throws {
        let a = try key("p256", "p256-a")
        let jwk = #"{\#(try members("p256", a)),"kid":"broken","x5c":["AAAA"]}"#
        XCTAssertThrowsError(try VerificationKey(jwkJSON: Array(jwk.utf8))) { error in
            XCTAssertEqual((error as? KeyError)?.code, .invalidCertificate, "\(error)")
            XCTAssertEqual((error as? KeyError)?.kid, "broken")
        }
    }
}
