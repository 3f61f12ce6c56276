import Foundation
import XCTest

/// JWTKernelRemoteTests' loopback server (its Support/LoopbackServer.swift, reading the script from that target's
/// Server/jwks_server.py) on 127.0.0.1, as
/// a subprocess this test process starts and stops; controlled over its stdin.
// Safety: used from one test at a time, its pipes written and read by the calling test only.
final class LoopbackServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    private(set) var port = 0

    /// `tls`: serve HTTPS with this certificate and key (PEM files).
    init(tls: (certificate: String, key: String)? = nil) throws {
        // The JWTKernelRemoteTests server script, shared rather than copied as a resource.
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("JWTKernelRemoteTests/Server/jwks_server.py")
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path] + (tls.map { ["--tls", $0.certificate, $0.key] } ?? [])
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

    func url(_ path: String, host: String = "127.0.0.1", scheme: String = "http") -> String {
        "\(scheme)://\(host):\(port)\(path)"
    }

    func stop() {
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

    @discardableResult
    func command(_ object: [String: Any]) -> [String: Any] {
        var data = try! JSONSerialization.data(withJSONObject: object)
        data.append(0x0A)
        input.fileHandleForWriting.write(data)
        let answer = readLine()
        return (try? JSONSerialization.jsonObject(with: Data(answer.utf8))) as? [String: Any] ?? [:]
    }

    /// Serves `route` at `path` (see the script for the fields).
    func set(_ path: String, _ route: [String: Any]) { command(["cmd": "set", "path": path, "route": route]) }

    func serve(_ path: String, json body: String, headers: [String: String] = [:], etag: String? = nil) {
        var route: [String: Any] = ["status": 200, "body": body, "headers": headers]
        if let etag { route["etag"] = etag }
        set(path, route)
    }

    /// Requests the server received for `path` (counted in its own log).
    func requests(_ path: String) -> Int {
        ((command(["cmd": "log"])["counts"] as? [String: Any])?[path] as? NSNumber)?.intValue ?? 0
    }

    /// The If-None-Match header of each request for `path`, in order.
    func conditionalHeaders(_ path: String) -> [String?] {
        let requests = command(["cmd": "log"])["requests"] as? [[Any]] ?? []
        return requests.filter { $0.first as? String == path }.map { $0.count > 1 ? $0[1] as? String : nil }
    }

    func resetLog() { command(["cmd": "reset_log"]) }

    /// An HS256 token signed by Python's hmac module.
    func hs256(secret: String, kid: String, claims: String) -> String {
        command([
            "cmd": "hs256", "secret": secret, "header": #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#,
            "claims": claims,
        ])["token"] as? String ?? ""
    }
}
