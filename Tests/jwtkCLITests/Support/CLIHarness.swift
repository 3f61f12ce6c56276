import Foundation
import XCTest

/// Runs the built `jwtk` executable as a process, as scripts do: the contract
/// under test is its stdout, stderr and exit status. The binary is looked for
/// next to the test bundle (where `swift build` puts it); tests skip, saying
/// why, only when it is absent.
enum CLIHarness {
    static func candidates() -> [URL] {
        var urls: [URL] = []
        if let explicit = ProcessInfo.processInfo.environment["JWTK_BINARY"] {
            urls.append(URL(fileURLWithPath: explicit))
        }
        let argv0 = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        urls.append(argv0.deletingLastPathComponent().appendingPathComponent("jwtk"))
        urls.append(Bundle.main.bundleURL.appendingPathComponent("jwtk"))
        urls.append(Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("jwtk"))
        // The resource bundle sits in the build directory: <build dir>/jwt-kernel_jwtkCLITests.resources.
        urls.append(
            Bundle.module.bundleURL.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent("jwtk")
        )
        for bundle in Bundle.allBundles {
            urls.append(bundle.bundleURL.deletingLastPathComponent().appendingPathComponent("jwtk"))
        }
        return urls
    }

    static func binary() throws -> URL {
        for url in candidates() where FileManager.default.isExecutableFile(atPath: url.path) {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
                return url
            }
        }
        throw XCTSkip(
            """
            jwtk binary not found next to the test bundle (looked in: \(Set(candidates().map { $0.deletingLastPathComponent().path }).sorted().joined(separator: ", "))). \
            Build it first with `swift build --product jwtk` (`make test` does), or set JWTK_BINARY.
            """)
    }

    /// Runs `jwtk args...` with `stdin` (empty when nil); stdout and stderr go
    /// through files so that large outputs can never dead-lock on a pipe.
    static func run(_ args: [String], stdin: Data? = nil, timeout: TimeInterval = 600) throws -> CLIRun {
        let binary = try binary()
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let inURL = dir.appendingPathComponent("stdin"), outURL = dir.appendingPathComponent("stdout"),
            errURL = dir.appendingPathComponent("stderr")
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
        return CLIRun(
            status: process.terminationStatus, stdout: try Data(contentsOf: outURL),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self), args: args)
    }
}
