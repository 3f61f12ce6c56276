import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

enum WycheproofResult: String {
    case valid, invalid, acceptable
}
