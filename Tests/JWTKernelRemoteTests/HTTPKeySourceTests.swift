import JWTKernelTestSupport
import XCTest

@testable import JWTKernel
@_spi(Fuzzing) @testable import JWTKernelRemote

/// One fetch against the real loopback server: formats, freshness headers and every way a fetch can go wrong.
final class HTTPKeySourceTests: XCTestCase {
    var server: LoopbackServer!

    override func setUpWithError() throws { server = try LoopbackServer() }
    override func tearDown() { server.stop() }

    func source(
        _ path: String = "/jwks", configure: (inout HTTPKeySourceConfiguration) -> Void = { _ in }
    ) throws -> HTTPKeySource {
        var config = HTTPKeySourceConfiguration()
        config.totalTimeout = 2
        configure(&config)
        return try HTTPKeySource(url: server.url(path), configuration: config)
    }

    func expectFailure(
        _ reason: KeySourceError.Reason, _ source: HTTPKeySource, file: StaticString = #filePath, line: UInt = #line
    ) {
        XCTAssertThrowsError(try source.fetch(ifNoneMatch: nil), file: file, line: line) { error in
            XCTAssertEqual((error as? KeySourceError)?.reason, reason, "\(error)", file: file, line: line)
        }
    }

    func testFetchesDocumentWithMaxAgeAndETagThenNotModified() throws {
        server.serve(
            "/jwks", json: RemoteKit.jwks(["k1"]), headers: ["Cache-Control": "public, max-age=1234, must-revalidate"],
            etag: "\"e1\"")
        let source = try source()
        guard case .document(let body, let freshness) = try source.fetch(ifNoneMatch: nil) else {
            return XCTFail("expected a document")
        }
        XCTAssertEqual(try KeyStore.parse(body).keys.map(\.kid), ["k1"])
        XCTAssertEqual(freshness, KeyFreshness(maxAge: 1234, etag: "\"e1\""))
        guard case .notModified(let again) = try source.fetch(ifNoneMatch: "\"e1\"") else {
            return XCTFail("expected 304")
        }
        XCTAssertEqual(again.etag, "\"e1\"")
        XCTAssertEqual(again.maxAge, 1234)
        XCTAssertEqual(server.conditionalHeaders("/jwks"), [nil, "\"e1\""])
    }

    func testServerErrorsAndGarbage() throws {
        server.set("/500", ["status": 500, "body": "oops"])
        expectFailure(.httpStatus, try source("/500"))
        server.set("/html", ["status": 200, "body": "<html></html>", "headers": ["Content-Type": "text/html"]])
        expectFailure(.notJSON, try source("/html"))
        server.set("/big", ["mode": "big", "size": 5 * 1024 * 1024])
        let big = try source("/big")
        let t = try RemoteKit.elapsed { expectFailure(.tooLarge, big) }
        XCTAssertLessThan(t, 2)
        server.set(
            "/chunky",
            [
                "status": 200, "body": String(repeating: " ", count: 2000) + "{}",
                "headers": ["Content-Type": "application/json"],
            ])
        expectFailure(.tooLarge, try source("/chunky") { $0.maxResponseBytes = 1000 })
        server.set("/cut", ["mode": "close_mid", "body": RemoteKit.jwks(["k1", "k2", "k3"])])
        expectFailure(.truncated, try source("/cut"))
        expectFailure(.connect, try HTTPKeySource(url: "http://127.0.0.1:1/jwks"))
    }

    func testHangingAndDrippingServersHitTheTimeouts() throws {
        server.set("/hang", ["mode": "hang", "seconds": 10, "body": "{}"])
        let hang = try source("/hang") { $0.totalTimeout = 0.5 }
        XCTAssertLessThan(try RemoteKit.elapsed { expectFailure(.timeout, hang) }, 2)
        server.set("/drip", ["mode": "drip", "seconds": 0.2, "body": RemoteKit.jwks(["k1"])])
        let drip = try source("/drip") { $0.totalTimeout = 0.7 }
        XCTAssertLessThan(try RemoteKit.elapsed { expectFailure(.timeout, drip) }, 2)
    }

    func testRedirectsOnlyWithinTheSameOrigin() throws {
        server.serve("/jwks", json: RemoteKit.jwks(["k1"]))
        server.set("/same", ["status": 302, "body": "", "headers": ["Location": "/jwks"]])
        guard case .document = try source("/same").fetch(ifNoneMatch: nil) else {
            return XCTFail("same-origin redirect not followed")
        }
        server.set(
            "/other", ["status": 302, "body": "", "headers": ["Location": server.url("/jwks", host: "localhost")]])
        expectFailure(.redirect, try source("/other"))
        server.set("/loop", ["status": 302, "body": "", "headers": ["Location": "/loop"]])
        expectFailure(.redirect, try source("/loop"))
    }

    func testURLPolicy() throws {
        XCTAssertThrowsError(try HTTPKeySource(url: "http://keys.example.com/jwks"))
        XCTAssertThrowsError(try HTTPKeySource(url: "ftp://127.0.0.1/jwks"))
        XCTAssertThrowsError(try HTTPKeySource(url: "file:///etc/passwd"))
        XCTAssertThrowsError(try HTTPKeySource(url: "not a url"))
        XCTAssertNoThrow(try HTTPKeySource(url: "https://keys.example.com/jwks"))
        XCTAssertNoThrow(try HTTPKeySource(url: "http://127.0.0.2:8080/jwks"))
        XCTAssertNoThrow(try HTTPKeySource(url: "http://localhost/jwks"))
        XCTAssertNoThrow(try HTTPKeySource(url: "http://[::1]/jwks"))
        var insecure = HTTPKeySourceConfiguration()
        insecure.allowInsecureHTTP = true
        XCTAssertNoThrow(try HTTPKeySource(url: "http://keys.example.com/jwks", configuration: insecure))
        XCTAssertFalse(FetchURL.isLoopback("127.0.0.1.evil.com"))
        XCTAssertFalse(FetchURL.isLoopback("128.0.0.1"))
    }

    func testCacheControlParsing() {
        func maxAge(_ value: String) -> Int64? {
            var head = HTTPResponseHead()
            for line in ["HTTP/1.1 200 OK\r\n", "Cache-Control: \(value)\r\n"] {
                Array(line.utf8).withUnsafeBytes { head.consume(line: $0) }
            }
            return head.maxAge
        }
        XCTAssertEqual(maxAge("max-age=300"), 300)
        XCTAssertEqual(maxAge("public, max-age=21600, must-revalidate, no-transform"), 21600)
        XCTAssertEqual(maxAge("no-store"), 0)
        XCTAssertNil(maxAge("max-age=-1"))
        XCTAssertNil(maxAge("max-age=99999999999999999999999"))
        XCTAssertNil(maxAge("private"))
    }
}
