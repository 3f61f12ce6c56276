import Foundation
import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@testable import JWTKernelRemote

/// HTTPS against the loopback server with a throwaway self-signed certificate:
/// refused by the system trust store, accepted with that certificate as `caFile`,
/// refused again when the host name does not match it.
final class HTTPSKeySourceTests: XCTestCase {
    func testCertificatesAreVerified() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let cert = dir.appendingPathComponent("cert.pem").path, key = dir.appendingPathComponent("key.pem").path
        let openssl = Process()
        openssl.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        openssl.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-days", "1",
            "-keyout", key, "-out", cert,
        ]
        openssl.standardOutput = FileHandle.nullDevice
        openssl.standardError = FileHandle.nullDevice
        do { try openssl.run() } catch { throw XCTSkip("openssl command not available: \(error)") }
        openssl.waitUntilExit()
        guard openssl.terminationStatus == 0 else { throw XCTSkip("openssl could not make a test certificate") }

        let server = try LoopbackServer(tls: (cert, key))
        defer { server.stop() }
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = 3

        let untrusted = try HTTPKeySource(url: server.url("/jwks", scheme: "https"), configuration: config)
        XCTAssertThrowsError(try untrusted.fetch(ifNoneMatch: nil)) { error in
            XCTAssertEqual((error as? KeySourceError)?.reason, .tls, "\(error)")
        }

        config.caFile = cert
        let trusted = try HTTPKeySource(url: server.url("/jwks", scheme: "https"), configuration: config)
        guard case .document(let body, _) = try trusted.fetch(ifNoneMatch: nil) else {
            return XCTFail("expected the key set")
        }
        XCTAssertEqual(try KeyStore.parse(body).keys.map(\.kid), ["k1"])

        let wrongName = try HTTPKeySource(
            url: server.url("/jwks", host: "localhost", scheme: "https"), configuration: config)
        XCTAssertThrowsError(try wrongName.fetch(ifNoneMatch: nil)) { error in
            XCTAssertEqual((error as? KeySourceError)?.reason, .tls, "\(error)")
        }
    }
}
