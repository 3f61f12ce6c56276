public import JWTKernel

/// Reading one member of a configuration object, for every configuration surface (the issuer file, the
/// C library's verifier config): each reader checks the JSON type and range and, when they are wrong,
/// throws an error naming the member as written, so an operator sees `"leeway": expected an integer in
/// 0...2147483647` on whichever surface they wrote it.
package enum ConfigMember {
    package static func string(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> String {
        guard let text = value.stringValue else { throw IssuerConfigurationError("\"\(name)\": expected a string") }
        return text
    }

    package static func strings(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> [String] {
        guard let list = value.arrayValue else {
            throw IssuerConfigurationError("\"\(name)\": expected an array of strings")
        }
        var out: [String] = []
        for item in list {
            guard let text = item.stringValue else {
                throw IssuerConfigurationError("\"\(name)\": expected an array of strings")
            }
            out.append(text)
        }
        return out
    }

    package static func bool(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> Bool {
        guard case .bool(let on) = value else { throw IssuerConfigurationError("\"\(name)\": expected true or false") }
        return on
    }

    /// Whole numbers only ("60", not "60.0" or "6e1"), within `range`.
    package static func integer(
        _ name: String, _ value: JSONValue, _ range: ClosedRange<Int64>
    ) throws(IssuerConfigurationError) -> Int64 {
        guard case .number(let text) = value, let n = Int64(text), range.contains(n) else {
            throw IssuerConfigurationError(
                "\"\(name)\": expected an integer in \(range.lowerBound)...\(range.upperBound)")
        }
        return n
    }

    package static func algorithms(_ name: String, _ value: JSONValue) throws(IssuerConfigurationError) -> AlgorithmSet
    {
        var set = AlgorithmSet()
        for alg in try strings(name, value) {
            guard let known = JWTAlgorithm(rawValue: alg) else {
                throw IssuerConfigurationError("\"\(name)\": \"\(alg)\" is not an algorithm jwtk verifies")
            }
            set.insert(AlgorithmSet([known]))
        }
        guard !set.isEmpty else { throw IssuerConfigurationError("\"\(name)\": name at least one algorithm") }
        return set
    }
}
