import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

struct WycheproofFileError: Error, CustomStringConvertible {
    let name: String
    var description: String { "\(name) is not a Wycheproof vector file" }
}
