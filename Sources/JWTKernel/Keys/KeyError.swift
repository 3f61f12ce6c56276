/// Why a key could not be loaded. Reasons name the key (by `kid`) and the
/// problem, never the key material.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var kid: String?
    public var reason: String

    public init(kid: String? = nil, _ reason: String) {
        self.kid = kid
        self.reason = reason
    }

    public var description: String {
        kid.map { "key \"\($0)\": \(reason)" } ?? reason
    }
}
