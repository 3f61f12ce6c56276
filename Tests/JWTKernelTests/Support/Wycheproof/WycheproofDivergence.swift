import Foundation
import XCTest

@_spi(Internals) @testable import JWTKernel

/// Vectors whose Wycheproof verdict the kernel deliberately does not follow,
/// listed by tcId with the reason. The run fails if a listed vector is
/// missing, carries a different verdict than `wycheproofSays`, or gets an
/// outcome other than `kernelAccepts`.
struct WycheproofDivergence {
    let tcIds: Set<Int>
    let wycheproofSays: WycheproofResult
    let kernelAccepts: Bool
    let why: String

    init(_ tcIds: some Sequence<Int>, wycheproofSays: WycheproofResult, kernelAccepts: Bool, why: String) {
        self.tcIds = Set(tcIds)
        self.wycheproofSays = wycheproofSays
        self.kernelAccepts = kernelAccepts
        self.why = why
    }
}
