import Foundation

/// The test tree's loopback HTTP(S) server (Tests/JWTKernelRemoteTests/Server/jwks_server.py) as a
/// subprocess of the test, controlled over its stdin: serves key sets and documents whose content a test
/// changes while the code under test runs, logs what it was asked, and signs HS256 tokens with Python's hmac
/// (an implementation independent of the kernel). One copy for the core's tests and the integrations'
/// (JWTKernelIntegrationTesting re-exports it); the script is found from this file's path, so the C and
/// Python tests that run it by path (IntegrationTests/clib, bindings/python) keep finding it there too.
// Safety: @unchecked because the pipes are written and read under `lock` only (tests call it from tasks).
public final class LoopbackServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    private let lock = NSLock()
    public private(set) var port = 0

    static var script: URL {
        // Tests/JWTKernelTestSupport/LoopbackServer.swift -> Tests/JWTKernelRemoteTests/Server/jwks_server.py.
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("JWTKernelRemoteTests/Server/jwks_server.py")
    }

    /// `tls`: serve HTTPS with this certificate and key (PEM files).
    public init(tls: (certificate: String, key: String)? = nil) throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let first = readLine()
        guard first.hasPrefix("PORT "), let port = Int(first.dropFirst(5)) else {
            stop()
            throw NSError(domain: "LoopbackServer", code: 1, userInfo: [NSLocalizedDescriptionKey: "no port: \(first)"])
        }
        self.port = port
    }

    deinit { stop() }

    public func url(_ path: String, host: String = "127.0.0.1", scheme: String = "http") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    public func stop() {
        guard process.isRunning else { return }
        try? input.fileHandleForWriting.close()
        process.terminate()
        process.waitUntilExit()
    }

    private func readLine() -> String {
        while true {
            if let newline = buffered.firstIndex(of: 0x0A) {
                let line = String(decoding: buffered[..<newline], as: UTF8.self)
                buffered.removeSubrange(...newline)
                return line
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return "" }
            buffered += chunk
        }
    }

    /// One command and its answer (the script's stdin protocol), serialised.
    @discardableResult
    public func command(_ object: [String: Any]) -> [String: Any] {
        lock.withLock {
            // The commands are literals of strings and numbers: serialisable by construction.
            var data = try! JSONSerialization.data(withJSONObject: object)
            data.append(0x0A)
            input.fileHandleForWriting.write(data)
            let answer = readLine()
            return (try? JSONSerialization.jsonObject(with: Data(answer.utf8))) as? [String: Any] ?? [:]
        }
    }

    /// Serves `route` at `path` (see the script for the fields).
    public func set(_ path: String, _ route: [String: Any]) { command(["cmd": "set", "path": path, "route": route]) }

    /// Serves `body` at `path` with `status` (200 by default), `headers` and an ETag if given.
    public func serve(
        _ path: String, json body: String, status: Int = 200, headers: [String: String] = [:], etag: String? = nil
    ) {
        var route: [String: Any] = ["status": status, "body": body, "headers": headers]
        if let etag { route["etag"] = etag }
        set(path, route)
    }

    /// Requests the server received for `path` (counted in its own log).
    public func requests(_ path: String) -> Int {
        ((command(["cmd": "log"])["counts"] as? [String: Any])?[path] as? NSNumber)?.intValue ?? 0
    }

    /// The If-None-Match header of each request for `path`, in order.
    public func conditionalHeaders(_ path: String) -> [String?] {
        let requests = command(["cmd": "log"])["requests"] as? [[Any]] ?? []
        return requests.filter { $0.first as? String == path }.map { $0.count > 1 ? $0[1] as? String : nil }
    }

    public func resetLog() { command(["cmd": "reset_log"]) }

    /// An HS256 token over `claims` (JSON text) signed by Python's hmac module.
    public func hs256(secret: String, kid: String, claims: String) -> String {
        command([
            "cmd": "hs256", "secret": secret, "header": #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#,
            "claims": claims,
        ])["token"] as? String ?? ""
    }
}
