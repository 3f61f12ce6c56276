import CJWTK
import JWTKernel

/// The verifier config's "claims": an array of requirements, each an object with "pointer" (an RFC 6901
/// JSON Pointer into the claims) and exactly one condition: "equals" (a string, number or boolean),
/// "one_of", "contains_all" or "contains_any" (non-empty arrays of those). Anything else, an unknown
/// member, a second condition, null or a nested array among the values, is JWTK_E_CONFIG naming the
/// requirement by index ("claims[2].one_of: ..."): a requirement read wrongly would open or close a door.
enum ClaimRequirementsConfig {
    static let conditions = ["equals", "one_of", "contains_all", "contains_any"]

    static func parse(_ value: JSONValue) throws(StatusError) -> [ClaimRequirement] {
        guard let items = value.arrayValue else {
            throw StatusError(JWTK_E_CONFIG, "claims: expected an array of requirements")
        }
        var out: [ClaimRequirement] = []
        for (i, item) in items.enumerated() { out.append(try requirement(item, "claims[\(i)]")) }
        return out
    }

    private static func requirement(_ item: JSONValue, _ at: String) throws(StatusError) -> ClaimRequirement {
        guard let members = item.objectValue else {
            throw StatusError(JWTK_E_CONFIG, "\(at): expected an object with \"pointer\" and a condition")
        }
        var pointer: String?
        var condition: ClaimRequirement.Condition?
        for m in members {
            let key = "\(at).\(m.name)"
            if m.name == "pointer" {
                guard let p = m.value.stringValue else { throw StatusError(JWTK_E_CONFIG, "\(key): expected a string") }
                pointer = p
                continue
            }
            guard conditions.contains(m.name) else {
                throw StatusError(
                    JWTK_E_CONFIG, "unknown config key \"\(key)\" (pointer, equals, one_of, contains_all, contains_any)"
                )
            }
            guard condition == nil else {
                throw StatusError(JWTK_E_CONFIG, "\(at): one condition per requirement (\(m.name) is a second)")
            }
            if m.name == "equals" {
                condition = .equals(try scalar(key, m.value))
                continue
            }
            let set = try values(key, m.value)
            switch m.name {
            case "one_of": condition = .oneOf(set)
            case "contains_all": condition = .containsAll(set)
            default: condition = .containsAny(set)
            }
        }
        guard let pointer else { throw StatusError(JWTK_E_CONFIG, "\(at): \"pointer\" is required") }
        guard let condition else {
            throw StatusError(JWTK_E_CONFIG, "\(at): give one of equals, one_of, contains_all, contains_any")
        }
        do { return try ClaimRequirement(pointer, condition) } catch {
            throw StatusError(JWTK_E_CONFIG, "\(at): \(error.message)")
        }
    }

    private static func scalar(_ key: String, _ value: JSONValue) throws(StatusError) -> ClaimValue {
        guard let v = ClaimValue(value) else {
            throw StatusError(JWTK_E_CONFIG, "\(key): expected a string, number or boolean")
        }
        return v
    }

    private static func values(_ key: String, _ value: JSONValue) throws(StatusError) -> [ClaimValue] {
        guard let list = value.arrayValue, !list.isEmpty else {
            throw StatusError(JWTK_E_CONFIG, "\(key): expected a non-empty array of strings, numbers or booleans")
        }
        var out: [ClaimValue] = []
        for item in list {
            guard let v = ClaimValue(item) else {
                throw StatusError(JWTK_E_CONFIG, "\(key): expected a non-empty array of strings, numbers or booleans")
            }
            out.append(v)
        }
        return out
    }
}
