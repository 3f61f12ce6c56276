#if canImport(Glibc)
import Glibc
#endif

/// A claim requirement as an error names it: its JSON Pointer and operator (`/role equals`), never a
/// value (a value would put a policy's secrets, or a token's claims, into logs).
///
/// Made once, when a policy is compiled, as NUL-terminated text in memory that is never freed: an error
/// carrying it stays valid after its policy is gone, and naming the requirement on the verify path is
/// a pointer copy (no allocation, as `JWTError` promises). Labels are interned by text, so compiling a
/// policy again reuses them: the memory grows only with the number of distinct requirements.
// Safety: @unchecked because of the pointer: its bytes are written once, before the label exists,
// never changed and never freed.
public struct ClaimRequirementLabel: @unchecked Sendable, Equatable, CustomStringConvertible {
    /// NUL-terminated UTF-8.
    public let cString: UnsafePointer<CChar>

    /// The operator's name, as the C and JSON configurations spell it.
    static func name(of condition: ClaimRequirement.Condition) -> String {
        switch condition {
        case .equals: "equals"
        case .oneOf: "one_of"
        case .containsAll: "contains_all"
        case .containsAny: "contains_any"
        }
    }

    private static let interned = Locked<[String: UnsafePointer<CChar>]>([:])

    init(_ requirement: ClaimRequirement) {
        let text = "\(requirement.pointer) \(Self.name(of: requirement.condition))"
        cString = Self.interned.withLock { table in
            if let known = table[text] { return known }
            // strdup: the text with its NUL, in memory nothing frees.
            let made = UnsafePointer(strdup(text)!)
            table[text] = made
            return made
        }
    }

    public var description: String { String(cString: cString) }

    public static func == (a: ClaimRequirementLabel, b: ClaimRequirementLabel) -> Bool { a.cString == b.cString }
}
