// Booleans that providers send either as JSON booleans or as the strings "true" and "false".

extension KeyedDecodingContainer {
    /// The boolean at `key`, sent as a JSON boolean or as the string `"true"` or `"false"`. Apple's identity tokens
    /// send `email_verified` and `is_private_email` both ways (older tokens as strings, newer as booleans; Apple
    /// documents both), and Apple's server notifications send `is_private_email` as a string; a plain `Bool` would
    /// refuse half of them.
    ///
    /// Only those two strings, exactly: `"TRUE"`, `"1"`, `"yes"` are a `DecodingError.dataCorrupted`, and a number,
    /// object, array or null a `DecodingError.typeMismatch`, so a claim that means something else is never read as
    /// a boolean. The error does not echo the string, which came from the token.
    public func decodeLenientBool(forKey key: Key) throws -> Bool {
        let value = try decode(JSONValue.self, forKey: key)
        switch value {
        case .bool(let flag): return flag
        case .string("true"): return true
        case .string("false"): return false
        case .string:
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: codingPath + [key],
                    debugDescription: "Expected a boolean or the string \"true\" or \"false\" but found another string."
                ))
        default:
            throw DecodingError.typeMismatch(
                Bool.self,
                .init(
                    codingPath: codingPath + [key],
                    debugDescription:
                        "Expected a boolean or the string \"true\" or \"false\" but found \(value.typeName)."))
        }
    }

    /// As `decodeLenientBool(forKey:)`, or `nil` when the member is absent or null.
    public func decodeLenientBoolIfPresent(forKey key: Key) throws -> Bool? {
        guard contains(key), try !decodeNil(forKey: key) else { return nil }
        return try decodeLenientBool(forKey: key)
    }
}
