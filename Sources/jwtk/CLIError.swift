import ArgumentParser
import Foundation

/// The one way jwtk reports an error on stderr, whatever found it (ArgumentParser's parsing and
/// validation, a configuration error, a key set): `jwtk: MESSAGE`, and for a usage error one more
/// line, `jwtk: see 'jwtk verify --help'`, instead of ArgumentParser's own "Error: ..." and usage block.
enum CLIError {
    /// `usage`: ArgumentParser's full text for a usage error (its help hint is kept), nil otherwise.
    static func report(_ error: any Error, usage: String? = nil) {
        var text = "jwtk: \(JWTK.message(for: error))\n"
        if let usage, let hint = helpHint(in: usage) { text += "jwtk: see '\(hint)'\n" }
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// A message that is not an error (a skipped key, a failing key URL): `jwtk: warning: MESSAGE`.
    static func warn(_ message: String) {
        FileHandle.standardError.write(Data("jwtk: warning: \(message)\n".utf8))
    }

    /// The `jwtk ... --help` command ArgumentParser's usage text names ("See 'jwtk verify --help' for
    /// more information."), so the hint names the subcommand that was called wrong.
    private static func helpHint(in usage: String) -> String? {
        guard let line = usage.split(separator: "\n").last(where: { $0.contains("--help") }),
            let open = line.firstIndex(of: "'"), let close = line[line.index(after: open)...].firstIndex(of: "'")
        else { return "jwtk --help" }
        return String(line[line.index(after: open)..<close])
    }
}
