import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// What the kernel did with one vector.
enum WycheproofOutcome: CustomStringConvertible {
    case accepted
    case rejected(String)

    var isAccepted: Bool {
        if case .accepted = self { return true }
        return false
    }

    var description: String {
        switch self {
        case .accepted: "accepted"
        case .rejected(let why): "rejected (\(why))"
        }
    }
}
