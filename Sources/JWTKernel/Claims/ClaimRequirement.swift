/// A condition on one claim's value, checked after everything else in the policy passed: the claim an
/// RFC 6901 JSON Pointer names (top-level `"/tenant"`, nested `"/realm_access/roles"`, a name holding "/"
/// `"/https:~1~1example.com~1roles"`) must equal a value, be one of a set, or contain all or any of a set.
/// A missing claim, a claim of another JSON type and a value outside the set all fail with
/// `claim_requirement_failed` (HTTP 403, RFC 6750 `insufficient_scope`): the token is genuine, it just
/// does not grant what this policy asks for.
public struct ClaimRequirement: Sendable, Hashable {
    /// What the claim's value must satisfy. Values compare by JSON type first: the string `"1"` never
    /// equals the number `1`, nor `"true"` the boolean `true`.
    public enum Condition: Sendable, Hashable {
        /// The claim is this string, number or boolean.
        case equals(ClaimValue)
        /// The claim equals one of these values.
        case oneOf([ClaimValue])
        /// The claim contains every value: an array holding each as an element, or a string holding each as
        /// one of its space-separated words (an OAuth `scope`: `"read write"`).
        case containsAll([ClaimValue])
        /// The claim contains at least one of the values (an array element or a space-separated word).
        case containsAny([ClaimValue])
    }

    /// The claim's RFC 6901 JSON Pointer into the claims set, as given.
    public let pointer: String
    public let condition: Condition

    /// Pointers longer than this are refused (the C library's limit for `jwtk_claim_at`, too).
    public static let maxPointerLength = 1024

    /// Checks everything a verification would otherwise have to guess about: the pointer's syntax (and
    /// that it names a claim, not the whole claims set), each number's syntax and range, and that no set
    /// is empty (an empty `oneOf` could never hold and an empty `containsAll` always would: both mistakes).
    public init(_ pointer: String, _ condition: Condition) throws(ClaimRequirementError) {
        let bytes = Array(pointer.utf8)
        guard !bytes.isEmpty else {
            throw ClaimRequirementError("the pointer is empty, which names the whole claims set, not a claim")
        }
        guard bytes.count <= Self.maxPointerLength else {
            throw ClaimRequirementError("the pointer is longer than \(Self.maxPointerLength) bytes")
        }
        switch bytes.withUnsafeBytes({ JSONPointer.validate($0) }) {
        case .noLeadingSlash?:
            throw ClaimRequirementError(
                "\"\(pointer)\" is not a JSON Pointer: it must start with \"/\" (\"/\(pointer)\")")
        case .badEscape?:
            throw ClaimRequirementError("\"\(pointer)\" is not a JSON Pointer: \"~\" must be followed by 0 or 1")
        case nil: break
        }
        let values: [ClaimValue]
        switch condition {
        case .equals(let value): values = [value]
        case .oneOf(let set), .containsAll(let set), .containsAny(let set):
            guard !set.isEmpty else { throw ClaimRequirementError("the set of values is empty") }
            values = set
        }
        for value in values { try value.validate() }
        self.pointer = pointer
        self.condition = condition
    }
}

/// A JSON string, number or boolean that a claim is compared with.
public enum ClaimValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral
{
    /// Equal to a claim string that decodes to the same UTF-8 bytes (no Unicode normalisation, case matters).
    case string(String)
    /// A JSON number, by its JSON text (`"42"`, `"1.5"`, `"2e3"`). Claims compare by exact decimal value:
    /// `1`, `1.0` and `10e-1` are equal (JSON has one number type, RFC 8259 section 6), `-0` equals `0`,
    /// and `9007199254740993` differs from `9007199254740992` (which a Double would merge).
    case number(String)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int64) { self = .number(String(value)) }
    /// Swift writes a Double as its shortest round-tripping decimal, which is valid JSON number text.
    public init(floatLiteral value: Double) { self = .number("\(value)") }

    /// A JSON string, number or boolean; nil for null, arrays and objects (no requirement compares them).
    public init?(_ json: JSONValue) {
        switch json {
        case .string(let s): self = .string(s)
        case .number(let text): self = .number(text)
        case .bool(let b): self = .bool(b)
        case .null, .array, .object: return nil
        }
    }

    /// The largest power of ten a number may carry: far beyond any claim, small enough that no exponent
    /// arithmetic on either side can overflow.
    static let maxExponent = 100_000

    func validate() throws(ClaimRequirementError) {
        guard case .number(let text) = self else { return }
        let bytes = Array(text.utf8)
        // The parser allows whitespace around a document; a number's text has none (it starts with "-" or a
        // digit and ends with a digit).
        let isDigit = { (b: UInt8) in b &- UInt8(ascii: "0") < 10 }
        guard let first = bytes.first, let last = bytes.last, first == UInt8(ascii: "-") || isDigit(first),
            isDigit(last), case .number? = try? JSONValue.parse(bytes)
        else {
            throw ClaimRequirementError("\"\(text)\" is not a JSON number")
        }
        let decimal = bytes.withUnsafeBufferPointer { JSONDecimal($0.baseAddress!, start: 0, end: $0.count) }
        // `exponent` is for 0.d1d2...: one more than the usual d1.d2... x 10^e.
        guard decimal.isZero || abs(decimal.exponent - 1) <= Self.maxExponent else {
            throw ClaimRequirementError("\(text) is out of range (powers of ten up to \(Self.maxExponent))")
        }
    }
}

/// Why a `ClaimRequirement` cannot be built; `message` says what to change (never token bytes: it is
/// built from configuration only).
public struct ClaimRequirementError: Error, Sendable, Equatable, CustomStringConvertible {
    public let message: String

    init(_ message: String) { self.message = message }

    public var description: String { message }
}
