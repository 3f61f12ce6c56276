/// Why a key could not be loaded: a stable `code` for programs and a `reason`
/// for people. Reasons name the key (by `kid`) and the problem, never the key
/// material.
public struct KeyError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: KeyErrorCode
    public var kid: String?
    public var reason: String

    public init(_ code: KeyErrorCode, kid: String? = nil, _ reason: String) {
        self.code = code
        self.kid = kid
        self.reason = reason
    }

    /// The same error, attributed to the key named `kid`.
    func naming(_ kid: String?) -> KeyError {
        KeyError(code, kid: kid, reason)
    }

    public var description: String {
        kid.map { "key \"\($0)\": \(reason)" } ?? reason
    }
}
