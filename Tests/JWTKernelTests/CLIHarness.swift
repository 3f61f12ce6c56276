import Foundation
import XCTest
@_spi(Internals) @testable import JWTKernel

/// Runs the built `jwtk` executable. The test target does not depend on it, so
/// it is looked for next to the test bundle (where `swift build` puts it);
/// tests skip, saying why, only when it is absent.
enum CLIHarness {
    struct Run {
        var status: Int32
        var stdout: Data
        var stderr: String
        var args: [String]

        var lines: [String] {
            let text = String(decoding: stdout, as: UTF8.self)
            var lines = text.components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            return lines
        }

        /// Every stdout line as a JSON object (fails the test for a line that is not one).
        func objects(file: StaticString = #filePath, line: UInt = #line) -> [[String: Any]] {
            lines.enumerated().map { (i, text) in
                guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                    XCTFail("stdout line \(i + 1) is not a JSON object: \(text.prefix(200))", file: file, line: line)
                    return [:]
                }
                return object
            }
        }
    }

    static func candidates() -> [URL] {
        var urls: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["JWTK_BINARY"] { urls.append(URL(fileURLWithPath: explicit)) }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        urls.append(argv0.deletingLastPathComponent().appendingPathComponent("jwtk"))
        urls.append(Bundle.main.bundleURL.appendingPathComponent("jwtk"))
        urls.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("jwtk"))
        // Fixtures live in <build dir>/jwt-kernel_JWTKernelTests.resources/Fixtures.
        urls.append(Fixtures.root.resolvingSymlinksInPath().deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("jwtk"))
        for bundle in Bundle.allBundles {
            urls.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("jwtk"))
        }
        return urls
    }

    static func binary() throws -> URL {
        for url in candidates() where FileManager.default.isExecutableFile(atPath: url.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue { return url }
        }
        throw XCTSkip("""
            jwtk binary not found next to the test bundle (looked in: \(Set(candidates().map { $0.deletingLastPathComponent().path }).sorted().joined(separator: ", "))). \
            Build it first with `swift build` (the .ci/run script does), or set JWTK_BINARY.
            """)
    }

    /// Runs `jwtk args...` with `stdin` (empty when nil); stdout and stderr go
    /// through files so that large outputs can never dead-lock on a pipe.
    static func run(_ args: [String], stdin: Data? = nil, timeout: TimeInterval = 600) throws -> Run {
        let binary = try binary()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("stdin"), outURL = dir.appendingPathComponent("stdout"), errURL = dir.appendingPathComponent("stderr")
        try (stdin ?? Data()).write(to: inURL)
        FileManager.default.createFile(atPath: outURL.path, contents: nil)
        FileManager.default.createFile(atPath: errURL.path, contents: nil)
        let input = try FileHandle(forReadingFrom: inURL)
        let output = try FileHandle(forWritingTo: outURL)
        let errors = try FileHandle(forWritingTo: errURL)
        defer { try? input.close(); try? output.close(); try? errors.close() }

        let process = Process()
        process.executableURL = binary
        process.arguments = args
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                XCTFail("jwtk \(args.prefix(6).joined(separator: " ")) did not finish in \(Int(timeout)) s")
                break
            }
            usleep(2_000)
        }
        process.waitUntilExit()
        return Run(status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
                   stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self), args: args)
    }
}

/// The attack fixtures, by name, and the paths of the key files the CLI reads.
enum CLIFixtures {
    static let now = String(AttackFixtures.now)
    static var publicJWKS: String { Fixtures.url("attacks/jwks.json").path }
    static var hmacJWKS: String { Fixtures.url("attacks/hmac-jwks.json").path }
    static func cli(_ name: String) -> String { Fixtures.url("cli/\(name)").path }

    nonisolated(unsafe) private static var cache: [String: AttackFixtures.Case]?

    static func byName() throws -> [String: AttackFixtures.Case] {
        if let cache { return cache }
        let all = Dictionary(uniqueKeysWithValues: try AttackFixtures.cases().map { ($0.name, $0) })
        cache = all
        return all
    }

    static func token(_ name: String) throws -> String {
        guard let c = try byName()[name] else { throw XCTSkip("fixture case \(name) is missing") }
        return c.token
    }

    /// `verify` with the attack suite's default policy: its key set, issuer, audience and clock.
    static func verifyArgs(jwks: [String]? = nil, policy: Bool = true) -> [String] {
        var args = ["verify"]
        for path in jwks ?? [publicJWKS] { args += ["--jwks", path] }
        if policy { args += ["--iss", AttackFixtures.issuer, "--aud", AttackFixtures.audience] }
        args += ["--now", now]
        return args
    }
}
