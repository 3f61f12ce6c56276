/// A verification failure. `detail` is a static string so that building an
/// error never allocates and can never echo token or key bytes back.
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: JWTErrorCode
    public let detail: StaticString

    @inlinable
    public init(_ code: JWTErrorCode, _ detail: StaticString) {
        self.code = code
        self.detail = detail
    }

    public var message: String { detail.description }
    public var description: String { "\(code.name): \(detail)" }

    public static func == (a: JWTError, b: JWTError) -> Bool {
        a.code == b.code && a.detail.description == b.detail.description
    }
}
