import ArgumentParser
import CJWTK
import Foundation

/// `jwtk`: verify and inspect JWTs from the command line.
///
/// Exit status: 0 every token valid, 1 some token invalid, 2 usage or
/// configuration error. ArgumentParser's own usage exit code (64) is mapped
/// to 2 here so scripts see one code for "you called me wrong".
@main
struct Entry {
    static func main() {
        do {
            var command = try JWTK.parseAsRoot()
            try command.run()
        } catch {
            let code = JWTK.exitCode(for: error)
            if code == .success {
                JWTK.exit(withError: error)  // --help, --version
            }
            if let exit = error as? ExitCode {
                Foundation.exit(exit.rawValue)
            }
            CLIError.report(error, usage: code == .validationFailure ? JWTK.fullMessage(for: error) : nil)
            Foundation.exit(2)
        }
    }
}

struct JWTK: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwtk",
        abstract: "Verify JWTs against trusted key sets (jwt-kernel).",
        // The library's version (jwtk.h's JWTK_VERSION, checked against VERSION by scripts/version-check.sh).
        version: JWTK_VERSION,
        subcommands: [VerifyCommand.self, InspectCommand.self, JWKSCommand.self]
    )
}

/// A configuration problem (unreadable key set, bad option value): exit status 2.
struct ConfigurationError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
