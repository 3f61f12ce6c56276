import Foundation

/// Polls `condition` every 20 ms (asynchronously) for up to `seconds`: for what a key refresher's thread does in its own time.
public func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
