import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

struct WycheproofGroup {
    let index: Int
    let fields: [String: Any]
    let tests: [WycheproofVector]

    func string(_ name: String) -> String? { fields[name] as? String }
    func int(_ name: String) -> Int? { (fields[name] as? NSNumber)?.intValue }
}
