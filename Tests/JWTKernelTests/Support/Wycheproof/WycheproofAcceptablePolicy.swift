import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// The one behaviour the kernel has for a file's `acceptable` vectors, and why.
struct WycheproofAcceptablePolicy {
    let kernelAccepts: Bool
    let why: String
}
