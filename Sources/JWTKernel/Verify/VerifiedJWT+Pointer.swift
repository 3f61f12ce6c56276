extension VerifiedJWT {
    /// The claim an RFC 6901 JSON Pointer names: `claim(at: "/address/country")`, `claim(at: "/roles/0")`,
    /// `claim(at: "/https:~1~1example.com~1roles")` for a member whose name holds "/" ("~1" is "/", "~0"
    /// is "~"). Array indices are decimal without leading zeros; "" is the whole claims set.
    /// nil when absent, and when `pointer` is not a JSON Pointer (neither empty nor starting with "/", or
    /// a "~" not followed by "0" or "1"). The same walk as the C library's `jwtk_claim_at`.
    public func claim(at pointer: String) -> JSONValue? { Self.value(at: pointer, in: claimsJSON) }

    /// A JOSE header parameter by JSON Pointer (`header(at: "/kid")`), as `claim(at:)` does for claims.
    public func header(at pointer: String) -> JSONValue? { Self.value(at: pointer, in: header) }

    private static func value(at pointer: String, in document: [UInt8]) -> JSONValue? {
        var pointer = pointer
        return pointer.withUTF8 { path in
            let path = UnsafeRawBufferPointer(path)
            guard JSONPointer.validate(path) == nil else { return nil }
            return document.withUnsafeBytes { doc in
                guard let span = JSONPointer.resolve(path, in: doc) else { return nil }
                // The document passed the strict parser when the token was verified: building cannot fail.
                return try? JSONValue.build(span, doc, maxDepth: JSONParser.defaultMaxDepth)
            }
        }
    }
}
