/// A `ClaimRequirement` turned into bytes once: the pointer's text and each value's UTF-8 bytes (numbers
/// with their decimal shape read), so a verification walks the claims by span and compares in place,
/// allocating nothing.
struct CompiledRequirement: Sendable {
    enum Kind: Sendable { case equals, oneOf, containsAll, containsAny }

    let pointer: [UInt8]
    /// The pointer's first reference token (a top-level claim name, still RFC 6901-escaped) and the rest
    /// ("" or "/..."): every requirement's top-level claim is found in one walk of the claims.
    let head: [UInt8]
    let headEscaped: Bool
    let rest: [UInt8]
    let kind: Kind
    let values: [CompiledClaimValue]

    init(_ r: ClaimRequirement) {
        pointer = Array(r.pointer.utf8)
        // ClaimRequirement.init checked the syntax: a "/" first.
        let next = pointer[1...].firstIndex(of: UInt8(ascii: "/")) ?? pointer.count
        head = Array(pointer[1..<next])
        headEscaped = head.contains(UInt8(ascii: "~"))
        rest = Array(pointer[next...])
        switch r.condition {
        case .equals(let v): kind = .equals; values = [CompiledClaimValue(v)]
        case .oneOf(let set): kind = .oneOf; values = set.map(CompiledClaimValue.init)
        case .containsAll(let set): kind = .containsAll; values = set.map(CompiledClaimValue.init)
        case .containsAny(let set): kind = .containsAny; values = set.map(CompiledClaimValue.init)
        }
    }

    /// The requirement against a claims set `JSONParser` validated. Every failure is the same code: the
    /// message says which way it failed (absent, wrong type, other value), never with token bytes.
    /// Every requirement against a claims set `JSONParser` validated, in order; the first failure throws.
    /// One walk over the claims finds each requirement's top-level member (stopping once all are found),
    /// so a few requirements cost about one lookup, not one walk each.
    static func checkAll(_ requirements: [CompiledRequirement], _ claims: UnsafeRawBufferPointer) throws(JWTError) {
        guard let root = JSONPointer.root(of: claims), root.kind == .object else {
            throw JWTError(.claimRequirementFailed, "a claim a requirement names is absent")
        }
        let base = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = requirements.count
        let failure = withUnsafeTemporaryAllocation(of: JSONSpan.self, capacity: n) { found -> JWTError? in
            let none = JSONSpan(start: -1, end: -1, kind: .null)  // not found (yet)
            found.initialize(repeating: none)
            var missing = n
            _ = ValidatedJSONWalk.members(base, objectAt: root.start, end: root.end) { name, value in
                for i in 0..<n where found[i].start < 0 && requirements[i].isHead(name, base) {
                    found[i] = value
                    missing -= 1
                }
                return missing == 0
            }
            for i in 0..<n {
                do throws(JWTError) { try requirements[i].check(found[i].start < 0 ? nil : found[i], claims) } catch {
                    return error
                }
            }
            return nil
        }
        if let failure { throw failure }
    }

    @inline(__always)
    private func isHead(_ name: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool {
        head.withUnsafeBytes { JSONPointer.matches(name, in: base, JSONPointer.Token($0, escaped: headEscaped)) }
    }

    /// The requirement, given the span of its top-level claim (nil: absent).
    func check(_ top: JSONSpan?, _ claims: UnsafeRawBufferPointer) throws(JWTError) {
        let found = top.flatMap { top in rest.withUnsafeBytes { JSONPointer.resolve($0, in: claims, from: top) } }
        guard let span = found else {
            throw JWTError(.claimRequirementFailed, "a claim a requirement names is absent")
        }
        let base = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch kind {
        case .equals:
            guard values[0].equals(span, base) else {
                throw JWTError(.claimRequirementFailed, "a claim does not equal its required value")
            }
        case .oneOf:
            for value in values where value.equals(span, base) { return }
            throw JWTError(.claimRequirementFailed, "a claim is none of its accepted values")
        case .containsAll:
            try checkContainer(span)
            for value in values where !value.isContained(in: span, base) {
                throw JWTError(.claimRequirementFailed, "a claim lacks a value it must contain")
            }
        case .containsAny:
            try checkContainer(span)
            for value in values where value.isContained(in: span, base) { return }
            throw JWTError(.claimRequirementFailed, "a claim contains none of its accepted values")
        }
    }

    /// "Contains" reads arrays and space-separated strings; any other type fails rather than being
    /// treated as empty, so the message tells a wrong type from a missing value.
    @inline(__always)
    private func checkContainer(_ span: JSONSpan) throws(JWTError) {
        guard span.kind == .array || span.kind == .string else {
            throw JWTError(.claimRequirementFailed, "a claim that must contain values is neither an array nor a string")
        }
    }
}

/// One value of a requirement, ready for in-place comparison.
struct CompiledClaimValue: Sendable {
    /// `.string`, `.number`, `.true` or `.false`.
    let kind: JSONKind
    /// A string's UTF-8 bytes, or a number's JSON text.
    let bytes: [UInt8]
    /// A number's shape over `bytes`.
    let decimal: JSONDecimal?

    init(_ value: ClaimValue) {
        switch value {
        case .string(let s): kind = .string; bytes = Array(s.utf8); decimal = nil
        case .bool(let b): kind = b ? .true : .false; bytes = []; decimal = nil
        case .number(let text):
            kind = .number
            bytes = Array(text.utf8)
            // ClaimRequirement.init checked the text is a JSON number.
            decimal = bytes.withUnsafeBufferPointer { JSONDecimal($0.baseAddress!, start: 0, end: $0.count) }
        }
    }

    /// Equal as JSON values of the same type: strings by decoded bytes, numbers by exact value.
    func equals(_ span: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool {
        guard span.kind == kind else { return false }
        switch kind {
        case .string: return bytes.withUnsafeBytes { JSONString.equals(span, in: base, $0) }
        case .number:
            let claim = JSONDecimal(base, start: span.start, end: span.end)
            return bytes.withUnsafeBufferPointer { JSONDecimal.equal(claim, base, decimal!, $0.baseAddress!) }
        default: return true  // true == true, false == false (the kinds matched)
        }
    }

    /// An element of the array `span` equals this value, or (a string value) the string `span` holds it
    /// as one of its words separated by spaces (U+0020 only, as RFC 6749 section 3.3 writes `scope`).
    func isContained(in span: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool {
        if span.kind == .array {
            return ValidatedJSONWalk.elements(base, arrayAt: span.start, end: span.end) { equals($0, base) }
        }
        guard span.kind == .string, kind == .string else { return false }
        return bytes.withUnsafeBytes { Self.hasWord($0, span, base) }
    }

    /// Whether the decoded string `span` has `word` between spaces (or its ends). Runs of spaces make
    /// empty words, which match nothing; a word with a space in it can never match.
    private static func hasWord(_ word: UnsafeRawBufferPointer, _ span: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool
    {
        guard !word.isEmpty else { return false }
        var decoder = JSONStringDecoder(span, in: base)
        var matched = 0  // bytes of `word` matched so far in this word; -1: this word differs
        while true {
            let b = decoder.next()
            if b == nil || b == 0x20 {
                if matched == word.count { return true }
                if b == nil { return false }
                matched = 0
            } else if matched >= 0 {
                matched = matched < word.count && word[matched] == b! ? matched + 1 : -1
            }
        }
    }
}
