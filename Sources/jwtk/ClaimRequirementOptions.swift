import ArgumentParser
import JWTKernel

/// `jwtk verify`'s claim-value requirements, one option per kind (the C config's "claims" conditions:
/// equals, one_of, contains_all, contains_any). Each takes POINTER=VALUE: an RFC 6901 JSON Pointer
/// ("/tenant", "/realm_access/roles", "/https:~1~1example.com~1roles"), split from the value at the
/// first "=". Repeating an option with the same pointer adds to its set.
struct ClaimRequirementOptions: ParsableArguments {
    @Option(
        name: .customLong("claim-equals"),
        help: ArgumentHelp(
            "Claim (a JSON Pointer) must equal VALUE: true, false, a JSON number or a \"quoted\" JSON string are JSON, anything else is a string. Repeatable (other pointers).",
            valueName: "POINTER=VALUE"))
    var equals: [String] = []

    @Option(
        name: .customLong("claim-one-of"),
        help: ArgumentHelp(
            "Claim must equal one of the values given for its pointer (repeat: /plan=pro --claim-one-of /plan=team).",
            valueName: "POINTER=VALUE"))
    var oneOf: [String] = []

    @Option(
        name: .customLong("claim-contains-all"),
        help: ArgumentHelp(
            "Claim (an array, or a space-separated string such as scope) must contain every value given for its pointer.",
            valueName: "POINTER=VALUE"))
    var containsAll: [String] = []

    @Option(
        name: .customLong("claim-contains-any"),
        help: ArgumentHelp(
            "Claim (an array, or a space-separated string) must contain at least one value given for its pointer.",
            valueName: "POINTER=VALUE"))
    var containsAny: [String] = []

    /// The requirements in option order: equals, one-of, contains-all, contains-any; sets grouped by
    /// pointer in the order each pointer first appears.
    func requirements() throws(ConfigurationError) -> [ClaimRequirement] {
        var out: [ClaimRequirement] = []
        var seen = Set<String>()
        for arg in equals {
            let (pointer, value) = try Self.split(arg, "--claim-equals")
            guard seen.insert(pointer).inserted else {
                throw ConfigurationError(
                    "--claim-equals \(pointer) is given twice (one value; --claim-one-of for a set)")
            }
            out.append(try Self.make("--claim-equals", pointer, .equals(value)))
        }
        for (option, args, make) in [
            ("--claim-one-of", oneOf, ClaimRequirement.Condition.oneOf),
            ("--claim-contains-all", containsAll, ClaimRequirement.Condition.containsAll),
            ("--claim-contains-any", containsAny, ClaimRequirement.Condition.containsAny),
        ] {
            var order: [String] = []
            var sets: [String: [ClaimValue]] = [:]
            for arg in args {
                let (pointer, value) = try Self.split(arg, option)
                if sets[pointer] == nil { order.append(pointer) }
                sets[pointer, default: []].append(value)
            }
            for pointer in order { out.append(try Self.make(option, pointer, make(sets[pointer]!))) }
        }
        return out
    }

    private static func make(
        _ option: String, _ pointer: String, _ condition: ClaimRequirement.Condition
    ) throws(ConfigurationError) -> ClaimRequirement {
        do { return try ClaimRequirement(pointer, condition) } catch {
            throw ConfigurationError("\(option) \(pointer): \(error.message)")
        }
    }

    /// POINTER=VALUE at the first "=" (a member name holding "=" cannot be named here: the C config can).
    private static func split(_ arg: String, _ option: String) throws(ConfigurationError) -> (String, ClaimValue) {
        guard let eq = arg.firstIndex(of: "=") else {
            throw ConfigurationError("\(option) \(arg): expected POINTER=VALUE, e.g. /scope=read")
        }
        let pointer = String(arg[..<eq])
        guard pointer.hasPrefix("/") else {
            throw ConfigurationError(
                "\(option) \(arg): the claim is an RFC 6901 JSON Pointer and starts with \"/\" (/\(pointer))")
        }
        return (pointer, try value(String(arg[arg.index(after: eq)...]), option, arg))
    }

    /// true, false, a JSON number or a JSON string in double quotes are read as JSON; any other text is
    /// the string itself, so `/tenant=acme` needs no quotes and `/id="42"` is the string "42".
    static func value(_ text: String, _ option: String, _ arg: String) throws(ConfigurationError) -> ClaimValue {
        if text.hasPrefix("\"") {
            guard case .string(let s)? = try? JSONValue.parse(Array(text.utf8)) else {
                throw ConfigurationError("\(option) \(arg): a value starting with \" must be one JSON string")
            }
            return .string(s)
        }
        if text == "true" { return .bool(true) }
        if text == "false" { return .bool(false) }
        if let first = text.utf8.first, first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") < 10,
            let last = text.utf8.last, last &- UInt8(ascii: "0") < 10,
            case .number? = try? JSONValue.parse(Array(text.utf8))
        {
            return .number(text)
        }
        return .string(text)
    }
}
