import Foundation

@_spi(Internals) @testable import JWTKernel

/// A clock tests can move.
final class MovableClock: JWTClock, @unchecked Sendable {
    private let lock = NSLock()
    private var time: Int64
    init(_ time: Int64) { self.time = time }
    func now() -> Int64 { lock.lock(); defer { lock.unlock() }; return time }
    func set(_ t: Int64) { lock.lock(); time = t; lock.unlock() }
}
