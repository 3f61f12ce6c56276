import Foundation
import XCTest

/// What one `jwtk` process did: exit status, stdout bytes, stderr text.
struct CLIRun {
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

    /// The error code per output line, nil for a valid token.
    func codes(file: StaticString = #filePath, line: UInt = #line) -> [String?] {
        objects(file: file, line: line).map { object in
            (object["valid"] as? Bool) == true ? nil : (object["error"] as? String ?? "<no error member>")
        }
    }
}
