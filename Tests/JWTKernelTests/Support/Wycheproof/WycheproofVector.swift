import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

struct WycheproofVector {
    let tcId: Int
    let comment: String
    let flags: [String]
    let result: WycheproofResult
    let fields: [String: Any]

    func string(_ name: String) -> String {
        guard let s = fields[name] as? String else { fatalError("tcId \(tcId): no string member \"\(name)\"") }
        return s
    }

    func hex(_ name: String) -> [UInt8] { Wycheproof.hex(string(name)) }

    var label: String {
        "tcId \(tcId) (\(comment.isEmpty ? "no comment" : comment)\(flags.isEmpty ? "" : "; flags \(flags.joined(separator: ","))"))"
    }
}
