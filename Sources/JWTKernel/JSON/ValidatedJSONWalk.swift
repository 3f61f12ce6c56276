#if canImport(Glibc)
import Glibc
#endif

/// Steps over a document `JSONParser` has already validated, without validating it again: the member and
/// element searches of `JSONPointer` (claim requirements on every verification, `jwtk_claim_at` per
/// lookup) stop at the value they want and skip the rest by scanning for structure only, which costs a
/// fraction of a validating pass over the same bytes. Only ever used on bytes the strict parser accepted
/// and nobody changed since (the verified claims or header in scratch, a ctx's copy): on such text every
/// step below lands on the byte the grammar says, so no bounds beyond the value's end are needed.
enum ValidatedJSONWalk {
    /// Calls `body` with each member (name span, value span) of the object whose text starts at `start`,
    /// until `body` returns true; returns whether it did.
    @inline(__always)
    static func members(
        _ b: UnsafePointer<UInt8>, objectAt start: Int, end: Int, _ body: (JSONSpan, JSONSpan) -> Bool
    ) -> Bool {
        var i = skipWhitespace(b, start + 1)
        if b[i] == UInt8(ascii: "}") { return false }
        while true {
            let name = string(b, i, end)  // i at the name's opening quote
            i = skipWhitespace(b, name.end + 1)
            i = skipWhitespace(b, i + 1)  // past ":"
            let value = self.value(b, i, end)
            if body(name, value) { return true }
            i = skipWhitespace(b, Self.end(of: value))
            if b[i] == UInt8(ascii: "}") { return false }
            i = skipWhitespace(b, i + 1)  // past ","
        }
    }

    /// Calls `body` with each element of the array whose text starts at `start`, until it returns true.
    @inline(__always)
    static func elements(
        _ b: UnsafePointer<UInt8>, arrayAt start: Int, end: Int, _ body: (JSONSpan) -> Bool
    ) -> Bool {
        var i = skipWhitespace(b, start + 1)
        if b[i] == UInt8(ascii: "]") { return false }
        while true {
            let value = self.value(b, i, end)
            if body(value) { return true }
            i = skipWhitespace(b, Self.end(of: value))
            if b[i] == UInt8(ascii: "]") { return false }
            i = skipWhitespace(b, i + 1)
        }
    }

    /// The span of the value starting at `i`, as `JSONParser` reports it (strings: between the quotes).
    static func value(_ b: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> JSONSpan {
        switch b[i] {
        case UInt8(ascii: "\""): return string(b, i, end)
        case UInt8(ascii: "{"): return JSONSpan(start: i, end: container(b, i, end), kind: .object)
        case UInt8(ascii: "["): return JSONSpan(start: i, end: container(b, i, end), kind: .array)
        case UInt8(ascii: "t"): return JSONSpan(start: i, end: i + 4, kind: .true)
        case UInt8(ascii: "f"): return JSONSpan(start: i, end: i + 5, kind: .false)
        case UInt8(ascii: "n"): return JSONSpan(start: i, end: i + 4, kind: .null)
        default:
            var j = i + 1
            while isNumberByte(b[j]) { j += 1 }
            return JSONSpan(start: i, end: j, kind: .number)
        }
    }

    /// The string whose opening quote is at `i`: content span, `escaped` when it holds a backslash.
    /// The closing quote is found with memchr (claims carry long opaque strings: hashes, session blobs),
    /// then confirmed unescaped: a quote preceded by an odd run of backslashes is part of the string.
    @inline(__always)
    static func string(_ b: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> JSONSpan {
        // Short strings (names, words, ids) end within a few bytes: a byte loop finds the closing quote
        // without two library calls, as long as no backslash comes first (then the general path decides).
        var p = i + 1
        let shortEnd = min(i + 17, end)
        while p < shortEnd {
            let c = b[p]
            if c == UInt8(ascii: "\"") { return JSONSpan(start: i + 1, end: p, kind: .string, escaped: false) }
            if c == UInt8(ascii: "\\") { break }
            p += 1
        }
        var j = i + 1
        while true {
            // Validated: a closing quote exists before `end` (the enclosing value's end).
            let hit = memchr(b + j, Int32(UInt8(ascii: "\"")), end - j)!
            let q = UnsafePointer(hit.assumingMemoryBound(to: UInt8.self)) - b
            var k = q - 1, slashes = 0
            while k > i, b[k] == UInt8(ascii: "\\") { slashes += 1; k -= 1 }
            if slashes & 1 == 0 {
                let escaped = memchr(b + i + 1, Int32(UInt8(ascii: "\\")), q - i - 1) != nil
                return JSONSpan(start: i + 1, end: q, kind: .string, escaped: escaped)
            }
            j = q + 1
        }
    }

    /// One past the closing bracket of the object or array opening at `i`, strings stepped over whole.
    static func container(_ b: UnsafePointer<UInt8>, _ i: Int, _ end: Int) -> Int {
        var depth = 0, j = i
        while true {
            switch b[j] {
            case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1; j += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                j += 1
                if depth == 0 { return j }
            case UInt8(ascii: "\""): j = string(b, j, end).end + 1
            default: j += 1
            }
        }
    }

    /// The byte after a value's text (a string's span stops before its closing quote).
    @inline(__always)
    static func end(of value: JSONSpan) -> Int { value.kind == .string ? value.end + 1 : value.end }

    @inline(__always)
    static func skipWhitespace(_ b: UnsafePointer<UInt8>, _ i: Int) -> Int {
        var j = i
        while JSONPointer.isWhitespace(b[j]) { j += 1 }
        return j
    }

    @inline(__always)
    static func isNumberByte(_ c: UInt8) -> Bool {
        c &- UInt8(ascii: "0") < 10 || c == UInt8(ascii: "-") || c == UInt8(ascii: "+") || c == UInt8(ascii: ".")
            || c | 0x20 == UInt8(ascii: "e")
    }
}
