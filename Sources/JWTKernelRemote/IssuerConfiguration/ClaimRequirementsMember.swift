public import JWTKernel

/// The "claims" member: an array of requirements, each an object with "pointer" (an RFC 6901 JSON Pointer
/// into the claims) and exactly one condition: "equals" (a string, number or boolean), "one_of",
/// "contains_all" or "contains_any" (non-empty arrays of those). Anything else, an unknown member, a
/// second condition, null or a nested array among the values, is an error naming the requirement by index
/// ("claims[2].one_of: ..."): a requirement read wrongly would open or close a door.
package enum ClaimRequirementsMember {
    static let conditions = ["equals", "one_of", "contains_all", "contains_any"]

    package static func parse(_ value: JSONValue) throws(IssuerConfigurationError) -> [ClaimRequirement] {
        guard let items = value.arrayValue else {
            throw IssuerConfigurationError("\"claims\": expected an array of requirements")
        }
        var out: [ClaimRequirement] = []
        for (i, item) in items.enumerated() { out.append(try requirement(item, "claims[\(i)]")) }
        return out
    }

    private static func requirement(
        _ item: JSONValue, _ at: String
    ) throws(IssuerConfigurationError) -> ClaimRequirement {
        guard let members = item.objectValue else {
            throw IssuerConfigurationError("\(at): expected an object with \"pointer\" and a condition")
        }
        var pointer: String?
        var condition: ClaimRequirement.Condition?
        for m in members {
            let key = "\(at).\(m.name)"
            if m.name == "pointer" {
                guard let p = m.value.stringValue else { throw IssuerConfigurationError("\(key): expected a string") }
                pointer = p
                continue
            }
            guard conditions.contains(m.name) else {
                throw IssuerConfigurationError(
                    "unknown member \"\(key)\" (pointer, equals, one_of, contains_all, contains_any)")
            }
            guard condition == nil else {
                throw IssuerConfigurationError("\(at): one condition per requirement (\(m.name) is a second)")
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
        guard let pointer else { throw IssuerConfigurationError("\(at): \"pointer\" is required") }
        guard let condition else {
            throw IssuerConfigurationError("\(at): give one of equals, one_of, contains_all, contains_any")
        }
        do { return try ClaimRequirement(pointer, condition) } catch {
            throw IssuerConfigurationError("\(at): \(error.message)")
        }
    }

    private static func scalar(_ key: String, _ value: JSONValue) throws(IssuerConfigurationError) -> ClaimValue {
        guard let v = ClaimValue(value) else {
            throw IssuerConfigurationError("\(key): expected a string, number or boolean")
        }
        return v
    }

    private static func values(_ key: String, _ value: JSONValue) throws(IssuerConfigurationError) -> [ClaimValue] {
        let problem = "\(key): expected a non-empty array of strings, numbers or booleans"
        guard let list = value.arrayValue, !list.isEmpty else { throw IssuerConfigurationError(problem) }
        var out: [ClaimValue] = []
        for item in list {
            guard let v = ClaimValue(item) else { throw IssuerConfigurationError(problem) }
            out.append(v)
        }
        return out
    }
}
