import Foundation
import XCTest

/// Test data bundled under Tests/JWTKernelTests/Fixtures (copied from external
/// sources with their licenses; tests never read outside the package).
enum Fixtures {
    static let root: URL = Bundle.module.url(forResource: "Fixtures", withExtension: nil)!

    static func url(_ relativePath: String) -> URL { root.appendingPathComponent(relativePath) }

    static func data(_ relativePath: String) throws -> Data { try Data(contentsOf: url(relativePath)) }

    static func text(_ relativePath: String) throws -> String {
        String(decoding: try data(relativePath), as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    static func json(_ relativePath: String) throws -> Any {
        try JSONSerialization.jsonObject(with: try data(relativePath))
    }

    static func directories(_ relativePath: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url(relativePath).path)
            .filter {
                var d: ObjCBool = false;
                return FileManager.default.fileExists(atPath: url(relativePath + "/" + $0).path, isDirectory: &d)
                    && d.boolValue
            }
            .sorted()
    }
}
