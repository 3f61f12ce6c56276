#if canImport(Glibc)
import Glibc
#endif

/// The policy's claim requirements as plain data for the hot path: every byte string (a pointer's first
/// reference token decoded, the rest of the pointer, each value's UTF-8) is copied once into memory this
/// object owns (freed in `deinit`), and the `CompiledRequirement`/`CompiledClaimValue` records point into
/// it. Reading them copies no array and retains nothing (as arrays of arrays, a verification with four
/// requirements spent about 1,100 instructions on retains and releases of the copies).
// Safety: @unchecked because of the raw pointers: the memory is written once in init, only read after,
// and freed in deinit, when no verification can hold the object.
@_spi(Internals) public final class CompiledRequirements: @unchecked Sendable {
    /// In the policy's order.
    let all: UnsafeBufferPointer<CompiledRequirement>
    /// A bit per requirement's head key (`filterBit`): one test skips a member no requirement names.
    let filter: UInt64
    private let owned: [UnsafeMutableRawPointer]

    @_spi(Internals) public var isEmpty: Bool { all.isEmpty }
    var count: Int { all.count }

    @_spi(Internals) public init(_ requirements: [ClaimRequirement]) {
        var owned: [UnsafeMutableRawPointer] = []
        func copy(_ bytes: [UInt8]) -> UnsafeRawBufferPointer {
            // At least one byte, so even an empty string has a base address.
            let p = UnsafeMutableRawPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            bytes.withUnsafeBytes { if !$0.isEmpty { p.copyMemory(from: $0.baseAddress!, byteCount: $0.count) } }
            owned.append(p)
            return UnsafeRawBufferPointer(start: p, count: bytes.count)
        }
        let records = UnsafeMutableBufferPointer<CompiledRequirement>.allocate(capacity: max(requirements.count, 1))
        owned.append(UnsafeMutableRawPointer(records.baseAddress!))
        var filter: UInt64 = 0
        for (i, r) in requirements.enumerated() {
            let pointer = Array(r.pointer.utf8)
            // ClaimRequirement.init checked the syntax: a "/" first.
            let next = pointer[1...].firstIndex(of: UInt8(ascii: "/")) ?? pointer.count
            let headName = CompiledRequirement.unescaped(Array(pointer[1..<next]))
            let (kind, set): (CompiledRequirement.Kind, [ClaimValue])
            switch r.condition {
            case .equals(let v): (kind, set) = (.equals, [v])
            case .oneOf(let vs): (kind, set) = (.oneOf, vs)
            case .containsAll(let vs): (kind, set) = (.containsAll, vs)
            case .containsAny(let vs): (kind, set) = (.containsAny, vs)
            }
            let values = UnsafeMutableBufferPointer<CompiledClaimValue>.allocate(capacity: max(set.count, 1))
            owned.append(UnsafeMutableRawPointer(values.baseAddress!))
            for (j, v) in set.enumerated() {
                switch v {
                case .string(let text):
                    (values.baseAddress! + j).initialize(
                        to: CompiledClaimValue(kind: .string, bytes: copy(Array(text.utf8)), decimal: nil))
                case .bool(let b):
                    (values.baseAddress! + j).initialize(
                        to: CompiledClaimValue(kind: b ? .true : .false, bytes: copy([]), decimal: nil))
                case .number(let text):
                    let bytes = copy(Array(text.utf8))
                    // ClaimRequirement.init checked the text is a JSON number.
                    let decimal = JSONDecimal(
                        bytes.baseAddress!.assumingMemoryBound(to: UInt8.self), start: 0, end: bytes.count)
                    (values.baseAddress! + j).initialize(
                        to: CompiledClaimValue(kind: .number, bytes: bytes, decimal: decimal))
                }
            }
            let record = CompiledRequirement(
                headKey: JSONNameKey(bytes: headName), headName: copy(headName), rest: copy(Array(pointer[next...])),
                kind: kind, values: UnsafeBufferPointer(rebasing: values[0..<set.count]),
                label: ClaimRequirementLabel(r))
            (records.baseAddress! + i).initialize(to: record)
            filter |= CompiledRequirement.filterBit(record.headKey)
        }
        all = UnsafeBufferPointer(rebasing: records[0..<requirements.count])
        self.filter = filter
        self.owned = owned
    }

    deinit {
        // Every record is plain data (pointers into `owned`): nothing to deinitialize.
        for p in owned { p.deallocate() }
    }

    /// Every requirement, in order, from the top-level claims `RegisteredClaims.read` recorded in its one
    /// pass (`heads[i]`: requirement i's top-level claim, `start < 0` when absent); the first failure
    /// throws. No walk of the claims: only a nested pointer steps further, from its recorded claim.
    @inline(__always)
    func checkAll(_ claims: UnsafeRawBufferPointer, heads: UnsafeBufferPointer<JSONSpan>) throws(JWTError) {
        for i in 0..<all.count {
            let top = heads[i]
            try all[i].check(top.start < 0 ? nil : top, claims)
        }
    }

    /// The same without recorded heads (callers that read the claims before they knew the policy, such as
    /// `MultiIssuerVerifier`): one walk over the claims finds each requirement's top-level member
    /// (stopping once all are found), then each is checked as above. Every failure is the same code: the
    /// message says which way it failed (absent, wrong type, other value), never with token bytes.
    @_spi(Internals) public func checkAll(_ claims: UnsafeRawBufferPointer) throws(JWTError) {
        guard let root = JSONPointer.root(of: claims), root.kind == .object else {
            throw JWTError(.claimRequirementFailed, "a claim a requirement names is absent")
        }
        let base = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let n = all.count
        let failure = withUnsafeTemporaryAllocation(of: JSONSpan.self, capacity: n) { found -> JWTError? in
            found.initialize(repeating: CompiledRequirement.absentHead)
            var missing = n
            _ = ValidatedJSONWalk.members(base, objectAt: root.start, end: root.end) { name, value in
                for i in 0..<n where found[i].start < 0 && JSONString.equals(name, in: base, all[i].headName) {
                    found[i] = value
                    missing -= 1
                }
                return missing == 0
            }
            do throws(JWTError) { try checkAll(claims, heads: UnsafeBufferPointer(found)) } catch {
                return error
            }
            return nil
        }
        if let failure { throw failure }
    }

    /// A member whose key passed `filter` during `RegisteredClaims.read`: records it as the top-level claim of
    /// each requirement it names (member names are unique, so at most one member matches a requirement).
    @inline(__always)
    func recordHead(
        _ name: JSONSpan, _ key: JSONNameKey, _ value: JSONSpan, _ bytes: UnsafePointer<UInt8>,
        _ heads: UnsafeMutableBufferPointer<JSONSpan>
    ) {
        for i in 0..<all.count where all[i].headKey == key {
            if key.isExact || JSONString.equals(name, in: bytes, all[i].headName) { heads[i] = value }
        }
    }
}

/// One `ClaimRequirement` as plain data: its pointer split into the first reference token (decoded: a
/// top-level claim name, with its name key) and the rest ("" or "/..."), and its values, all pointing into
/// the memory of the `CompiledRequirements` that made it. A verification compares in place, allocating
/// nothing.
struct CompiledRequirement {
    enum Kind { case equals, oneOf, containsAll, containsAny }

    let headKey: JSONNameKey
    let headName: UnsafeRawBufferPointer
    let rest: UnsafeRawBufferPointer
    let kind: Kind
    let values: UnsafeBufferPointer<CompiledClaimValue>
    /// What a failure names (prepared at compile time: naming costs a pointer copy).
    let label: ClaimRequirementLabel

    /// An RFC 6901 reference token's bytes with "~1" as "/" and "~0" as "~" (the syntax was checked).
    static func unescaped(_ token: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < token.count {
            if token[i] == UInt8(ascii: "~") {
                out.append(token[i + 1] == UInt8(ascii: "0") ? UInt8(ascii: "~") : UInt8(ascii: "/"))
                i += 2
            } else {
                out.append(token[i])
                i += 1
            }
        }
        return out
    }

    /// The bit of a name key in a 64-bit filter of requirement heads (the key's top six bits after a
    /// multiply, so short exact keys, which differ in their low bytes, spread too).
    @inline(__always)
    static func filterBit(_ key: JSONNameKey) -> UInt64 {
        1 &<< ((key.value &* 0x9E37_79B9_7F4A_7C15) &>> 58)
    }

    /// "Not found (yet)" in a heads buffer.
    static let absentHead = JSONSpan(start: -1, end: -1, kind: .null)

    /// The requirement, given the span of its top-level claim (nil: absent); a failure names it.
    @inline(__always)
    func check(_ top: JSONSpan?, _ claims: UnsafeRawBufferPointer) throws(JWTError) {
        do throws(JWTError) { try checkValue(top, claims) } catch { throw error.naming(label) }
    }

    private func checkValue(_ top: JSONSpan?, _ claims: UnsafeRawBufferPointer) throws(JWTError) {
        let found = rest.isEmpty ? top : top.flatMap { JSONPointer.resolve(rest, in: claims, from: $0) }
        guard let span = found else {
            throw JWTError(.claimRequirementFailed, "a claim a requirement names is absent")
        }
        let base = claims.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let vs = values
        switch kind {
        case .equals:
            guard vs[0].equals(span, base) else {
                throw JWTError(.claimRequirementFailed, "a claim does not equal its required value")
            }
        case .oneOf:
            for i in 0..<vs.count where vs[i].equals(span, base) { return }
            throw JWTError(.claimRequirementFailed, "a claim is none of its accepted values")
        case .containsAll:
            try checkContainer(span)
            if span.kind == .array, vs.count <= 64 {
                guard Self.arrayHolds(span, base, vs, all: true) else {
                    throw JWTError(.claimRequirementFailed, "a claim lacks a value it must contain")
                }
                return
            }
            for i in 0..<vs.count where !vs[i].isContained(in: span, base) {
                throw JWTError(.claimRequirementFailed, "a claim lacks a value it must contain")
            }
        case .containsAny:
            try checkContainer(span)
            if span.kind == .array, vs.count <= 64 {
                guard Self.arrayHolds(span, base, vs, all: false) else {
                    throw JWTError(.claimRequirementFailed, "a claim contains none of its accepted values")
                }
                return
            }
            for i in 0..<vs.count where vs[i].isContained(in: span, base) { return }
            throw JWTError(.claimRequirementFailed, "a claim contains none of its accepted values")
        }
    }

    /// Whether the array `span` holds all (or any) of `values` as elements, in one walk of it that stops as
    /// soon as the answer is known (a value per walk took one walk per value). At most 64 values: a bit each.
    private static func arrayHolds(
        _ span: JSONSpan, _ base: UnsafePointer<UInt8>, _ values: UnsafeBufferPointer<CompiledClaimValue>, all: Bool
    ) -> Bool {
        let every: UInt64 = values.count == 64 ? ~0 : (1 << UInt64(values.count)) - 1
        var found: UInt64 = 0
        return ValidatedJSONWalk.elements(base, arrayAt: span.start, end: span.end) { element in
            for i in 0..<values.count where found & (1 << UInt64(i)) == 0 && values[i].equals(element, base) {
                found |= 1 << UInt64(i)
                if !all { return true }
            }
            return found == every
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

/// One value of a requirement, ready for in-place comparison (its bytes owned by `CompiledRequirements`).
struct CompiledClaimValue {
    /// `.string`, `.number`, `.true` or `.false`.
    let kind: JSONKind
    /// A string's UTF-8 bytes, or a number's JSON text.
    let bytes: UnsafeRawBufferPointer
    /// A number's shape over `bytes`.
    let decimal: JSONDecimal?

    /// Equal as JSON values of the same type: strings by decoded bytes, numbers by exact value.
    func equals(_ span: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool {
        guard span.kind == kind else { return false }
        switch kind {
        case .string: return JSONString.equals(span, in: base, bytes)
        case .number:
            let claim = JSONDecimal(base, start: span.start, end: span.end)
            return JSONDecimal.equal(claim, base, decimal!, bytes.baseAddress!.assumingMemoryBound(to: UInt8.self))
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
        return Self.hasWord(bytes, span, base)
    }

    /// Whether the decoded string `span` has `word` between spaces (or its ends). Runs of spaces make
    /// empty words, which match nothing; a word with a space in it can never match.
    private static func hasWord(_ word: UnsafeRawBufferPointer, _ span: JSONSpan, _ base: UnsafePointer<UInt8>) -> Bool
    {
        guard !word.isEmpty else { return false }
        if !span.escaped {
            // The string's bytes are its decoded value: find each word's end with memchr, compare with memcmp.
            var p = base + span.start
            let end = base + span.end
            while true {
                let space = memchr(p, 0x20, end - p).map { UnsafePointer($0.assumingMemoryBound(to: UInt8.self)) }
                let wordEnd = space ?? end
                if wordEnd - p == word.count, memcmp(p, word.baseAddress!, word.count) == 0 { return true }
                guard let space else { return false }
                p = space + 1
            }
        }
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
