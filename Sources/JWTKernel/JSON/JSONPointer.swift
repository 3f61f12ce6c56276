/// RFC 6901 JSON Pointers ("/address/country", "/roles/0", "/https:~1~1example.com~1roles") over a
/// document `JSONParser` already validated, by span (stepped over by `ValidatedJSONWalk`, not parsed
/// again): nothing is decoded or allocated, so the C
/// library's `jwtk_claim_at` (per request, allocation-free) and the Swift API's `claim(at:)` walk the
/// same code. The member search here is also what `jwtk_claim`'s dotted names use.
@_spi(Internals)
public enum JSONPointer {
    /// One reference token of a pointer: the bytes between two "/", still RFC 6901-escaped ("~0" is
    /// "~", "~1" is "/") when `escaped`. A plain member name (jwtk_claim's) is a token with no escapes.
    public struct Token {
        public let bytes: UnsafeRawBufferPointer
        public let escaped: Bool

        public init(_ bytes: UnsafeRawBufferPointer, escaped: Bool = false) {
            self.bytes = bytes
            self.escaped = escaped
        }
    }

    /// Why a pointer is not one (RFC 6901 section 3).
    public enum SyntaxError: Error, Sendable {
        /// Neither empty nor starting with "/".
        case noLeadingSlash
        /// A "~" not followed by "0" or "1".
        case badEscape
    }

    /// Checks the syntax: "" (the whole document), or "/" followed by reference tokens in which every
    /// "~" is followed by "0" or "1". UTF-8 is the caller's check (both callers have text already).
    public static func validate(_ pointer: UnsafeRawBufferPointer) -> SyntaxError? {
        guard !pointer.isEmpty else { return nil }
        guard pointer[0] == UInt8(ascii: "/") else { return .noLeadingSlash }
        var i = 1
        while i < pointer.count {
            if pointer[i] == UInt8(ascii: "~") {
                guard i + 1 < pointer.count, pointer[i + 1] == UInt8(ascii: "0") || pointer[i + 1] == UInt8(ascii: "1")
                else { return .badEscape }
                i += 1
            }
            i += 1
        }
        return nil
    }

    /// The value `pointer` names in `doc`; nil when absent. `pointer` must have passed `validate` and
    /// `doc` the strict parser (an unreadable part reads as absent, never as a guess).
    public static func resolve(_ pointer: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer) -> JSONSpan? {
        guard let top = root(of: doc) else { return nil }
        return resolve(pointer, in: doc, from: top)
    }

    /// `pointer` resolved from the value `from` (a span in `doc`) instead of the root: claim requirements
    /// find every first step in one walk of the claims, then resolve the rest of each pointer here.
    static func resolve(
        _ pointer: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer, from: JSONSpan
    ) -> JSONSpan? {
        var current = from
        var start = 1  // past the leading "/"; the empty pointer skips the loop and names the root
        while start <= pointer.count, !pointer.isEmpty {
            var end = start, escaped = false
            while end < pointer.count, pointer[end] != UInt8(ascii: "/") {
                if pointer[end] == UInt8(ascii: "~") { escaped = true }
                end += 1
            }
            let token = Token(UnsafeRawBufferPointer(rebasing: pointer[start..<end]), escaped: escaped)
            switch current.kind {
            case .object: guard let next = member(token, in: doc, of: current) else { return nil }; current = next
            case .array: guard let next = element(token, in: doc, of: current) else { return nil }; current = next
            default: return nil
            }
            start = end + 1
        }
        return current
    }

    /// The document's top-level value, without the whitespace JSON allows around it.
    public static func root(of doc: UnsafeRawBufferPointer) -> JSONSpan? {
        var start = 0, end = doc.count
        while start < end, isWhitespace(doc[start]) { start += 1 }
        while end > start, isWhitespace(doc[end - 1]) { end -= 1 }
        guard start < end else { return nil }
        // Claims and headers are objects: their span is the trimmed text, with no parse. Any other root
        // (a string needs its escape flag and its quotes off) takes one parse, on the Swift API's cold path.
        switch doc[start] {
        case UInt8(ascii: "{"): return JSONSpan(start: start, end: end, kind: .object)
        case UInt8(ascii: "["): return JSONSpan(start: start, end: end, kind: .array)
        default:
            var parser = JSONParser(doc)
            return try? parser.parseDocument()
        }
    }

    /// The member of `object` (a span in `doc`) whose decoded name equals `token`'s unescaped bytes.
    public static func member(_ token: Token, in doc: UnsafeRawBufferPointer, of object: JSONSpan) -> JSONSpan? {
        guard let base = doc.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var found: JSONSpan?
        // Validated before, so a structural walk suffices, and it stops at the hit: names are unique (the
        // parser refuses duplicates), so the first hit is the only one.
        _ = ValidatedJSONWalk.members(base, objectAt: object.start, end: object.end) { name, value in
            guard matches(name, in: base, token) else { return false }
            found = value
            return true
        }
        return found
    }

    /// The element of `array` that `token` indexes: RFC 6901 section 4's array-index, decimal without
    /// leading zeros; "-" (the element after the last) and anything else never match.
    static func element(_ token: Token, in doc: UnsafeRawBufferPointer, of array: JSONSpan) -> JSONSpan? {
        guard let index = arrayIndex(token), let base = doc.baseAddress?.assumingMemoryBound(to: UInt8.self) else {
            return nil
        }
        var found: JSONSpan?
        var i = 0
        _ = ValidatedJSONWalk.elements(base, arrayAt: array.start, end: array.end) { value in
            if i == index { found = value; return true }
            i += 1
            return false
        }
        return found
    }

    /// Calls `body` with each element of `array` (a validated span over `base`), in order.
    public static func forEachElement(
        of array: JSONSpan, in base: UnsafePointer<UInt8>, _ body: (JSONSpan) -> Void
    ) {
        _ = ValidatedJSONWalk.elements(base, arrayAt: array.start, end: array.end) { value in
            body(value)
            return false
        }
    }

    /// The token as an array index, or nil. More than 18 digits cannot index any document that fits
    /// in memory (and would overflow Int): nil, the same as any index past the end.
    static func arrayIndex(_ token: Token) -> Int? {
        let t = token.bytes
        guard !token.escaped, !t.isEmpty, t.count <= 18 else { return nil }
        if t[0] == UInt8(ascii: "0") { return t.count == 1 ? 0 : nil }
        var n = 0
        for b in t {
            guard b &- UInt8(ascii: "0") < 10 else { return nil }
            n = n * 10 + Int(b &- UInt8(ascii: "0"))
        }
        return n
    }

    /// Whether the JSON string `name` decodes to the bytes `token` stands for.
    static func matches(_ name: JSONSpan, in base: UnsafePointer<UInt8>, _ token: Token) -> Bool {
        if !token.escaped { return JSONString.equals(name, in: base, token.bytes) }
        var decoded = JSONStringDecoder(name, in: base)
        var i = 0
        let t = token.bytes
        while i < t.count {
            var want = t[i]
            if want == UInt8(ascii: "~") {
                // validate() made sure a "0" or "1" follows.
                i += 1
                want = t[i] == UInt8(ascii: "0") ? UInt8(ascii: "~") : UInt8(ascii: "/")
            }
            guard decoded.next() == want else { return false }
            i += 1
        }
        return decoded.next() == nil
    }

    @inline(__always)
    static func isWhitespace(_ b: UInt8) -> Bool { b == 0x20 || b == 0x0A || b == 0x0D || b == 0x09 }
}
