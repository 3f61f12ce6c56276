import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

struct WycheproofTally: CustomStringConvertible {
    let file: String
    var checked = 0
    var valid = 0
    var invalid = 0
    var acceptable = 0
    var diverging = 0
    var mismatches = 0

    var description: String {
        "\(file): \(checked) vectors checked (\(valid) valid, \(invalid) invalid, \(acceptable) acceptable), "
            + "\(diverging) listed divergences, \(mismatches) mismatches"
    }
}
