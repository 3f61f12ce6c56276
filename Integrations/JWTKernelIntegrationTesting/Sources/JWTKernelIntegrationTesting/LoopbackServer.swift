import Foundation

/// The core's loopback HTTP server (Tests/JWTKernelRemoteTests/Server/jwks_server.py) as a subprocess of
/// the test: serves key sets whose content a test changes while a framework's server runs, and signs
/// HS256 tokens with Python's hmac (an implementation independent of the kernel). The script is found
/// from this file's path, so the integrations reuse it rather than keep a copy.
public final class LoopbackServer: @unchecked Sendable {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffered: [UInt8] = []
    private let lock = NSLock()
    public private(set) var port = 0

    static var script: URL {
        // Sources/JWTKernelIntegrationTesting/LoopbackServer.swift -> the repository's root, 5 levels up.
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<5 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Tests/JWTKernelRemoteTests/Server/jwks_server.py")
    }

    public init() throws {
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", Self.script.path]
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

    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }

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

    /// One command and its answer (the script's stdin protocol); serialised, as tests call it from tasks.
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

    /// Serves `body` at `path` with status 200, or another status.
    public func serve(_ path: String, json body: String, status: Int = 200, headers: [String: String] = [:]) {
        command(["cmd": "set", "path": path, "route": ["status": status, "body": body, "headers": headers]])
    }

    /// Requests the server received for `path`.
    public func requests(_ path: String) -> Int {
        ((command(["cmd": "log"])["counts"] as? [String: Any])?[path] as? NSNumber)?.intValue ?? 0
    }

    /// An HS256 token over `claims` (JSON text) signed by Python's hmac module.
    public func hs256(secret: String, kid: String, claims: String) -> String {
        command([
            "cmd": "hs256", "secret": secret, "header": #"{"alg":"HS256","typ":"JWT","kid":"\#(kid)"}"#,
            "claims": claims,
        ])["token"] as? String ?? ""
    }
}
