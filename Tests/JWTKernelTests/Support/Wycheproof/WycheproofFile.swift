import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

struct WycheproofFile {
    let name: String
    let numberOfTests: Int
    let groups: [WycheproofGroup]

    init(_ name: String) throws {
        self.name = name
        guard let root = try Fixtures.json("wycheproof/\(name)") as? [String: Any],
            let count = (root["numberOfTests"] as? NSNumber)?.intValue,
            let groups = root["testGroups"] as? [[String: Any]]
        else { throw WycheproofFileError(name: name) }
        numberOfTests = count
        self.groups = try groups.enumerated().map { index, group in
            guard let tests = group["tests"] as? [[String: Any]] else { throw WycheproofFileError(name: name) }
            return WycheproofGroup(
                index: index, fields: group,
                tests: try tests.map { t in
                    guard let id = (t["tcId"] as? NSNumber)?.intValue,
                        let resultText = t["result"] as? String,
                        let result = WycheproofResult(rawValue: resultText)
                    else { throw WycheproofFileError(name: name) }
                    return WycheproofVector(
                        tcId: id, comment: t["comment"] as? String ?? "",
                        flags: t["flags"] as? [String] ?? [], result: result, fields: t)
                })
        }
    }

    var vectors: [WycheproofVector] { groups.flatMap(\.tests) }

    func vector(_ tcId: Int) -> WycheproofVector? { vectors.first { $0.tcId == tcId } }
}
