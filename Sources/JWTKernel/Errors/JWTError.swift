/// A verification failure. `detail` is a static string so that building an
/// error never allocates and can never echo token or key bytes back.
///
/// Two optional notes say where, still without allocating: `offset`, where in
/// a JSON document the parser stopped (recorded only by `JSONValue.parse`, the
/// configuration and key-set reader, and turned into a line and column only
/// when a message is rendered: `message(locatedIn:)`), and `requirement`, the
/// claim requirement that failed (a label prepared when the policy was compiled).
public struct JWTError: Error, Sendable, Equatable, CustomStringConvertible {
    public let code: JWTErrorCode
    /// The byte offset, or -1. Int32 beside `code`, so the error is no larger for it (documents are
    /// at most 16 MiB).
    @usableFromInline let offsetStorage: Int32
    public let detail: StaticString
    /// The claim requirement that failed (`claimRequirementFailed` only), or nil.
    public let requirement: ClaimRequirementLabel?

    @inlinable
    public init(_ code: JWTErrorCode, _ detail: StaticString) {
        self.code = code
        self.offsetStorage = -1
        self.detail = detail
        self.requirement = nil
    }

    @usableFromInline
    init(_ code: JWTErrorCode, _ detail: StaticString, offset: Int32, requirement: ClaimRequirementLabel?) {
        self.code = code
        self.offsetStorage = offset
        self.detail = detail
        self.requirement = requirement
    }

    /// Where in the JSON document the parser stopped (a byte offset from 0), or nil.
    public var offset: Int? { offsetStorage < 0 ? nil : Int(offsetStorage) }

    /// The same error, noting where in the document it was found.
    func at(offset: Int) -> JWTError {
        JWTError(code, detail, offset: Int32(clamping: offset), requirement: requirement)
    }

    /// The same error, naming the requirement that failed.
    @inline(__always)
    func naming(_ requirement: ClaimRequirementLabel) -> JWTError {
        JWTError(code, detail, offset: offsetStorage, requirement: requirement)
    }

    /// The detail, after the requirement's label when there is one ("claim requirement /role equals:
    /// a claim does not equal its required value").
    public var message: String {
        guard let requirement else { return detail.description }
        return "claim requirement \(requirement): \(detail)"
    }

    /// `message`, followed by the line and column of `offset` in `document` (the bytes parsed) when
    /// the error has one: what a configuration error shows ("expected member name at line 4, column 1").
    public func message(locatedIn document: some Collection<UInt8>) -> String {
        guard let offset else { return message }
        return "\(message) at \(JSONTextPosition(offset: offset, in: document))"
    }

    public var description: String { "\(code.name): \(message)" }

    /// Equal when the code and detail are: where it happened is context, not identity.
    public static func == (a: JWTError, b: JWTError) -> Bool {
        a.code == b.code && a.detail.description == b.detail.description
    }
}
