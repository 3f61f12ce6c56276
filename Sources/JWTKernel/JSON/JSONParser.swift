internal import CJWTKernelSIMD

/// An RFC 8259-strict JSON reader over bytes it does not own.
///
/// It validates as it goes (UTF-8, escapes including surrogate pairs, the
/// number grammar, a nesting limit) and reports values as `JSONSpan`s instead
/// of building objects, so the hot path reads a header or claims set without
/// allocating. Strictness is a security property: any input two parsers could
/// read differently is refused rather than guessed at.
@_spi(Internals)
public struct JSONParser {
    public static let defaultMaxDepth = 32

    @usableFromInline let bytes: UnsafePointer<UInt8>
    @usableFromInline let count: Int
    @usableFromInline var pos: Int
    @usableFromInline let maxDepth: Int

    public init(_ buffer: UnsafeRawBufferPointer, maxDepth: Int = JSONParser.defaultMaxDepth) {
        // A zero-length buffer may have no base address; any valid pointer does, as nothing is read.
        self.bytes = buffer.baseAddress?.assumingMemoryBound(to: UInt8.self) ?? UnsafePointer(bitPattern: 1)!
        self.count = buffer.count
        self.pos = 0
        self.maxDepth = maxDepth
    }

    init(bytes: UnsafePointer<UInt8>, count: Int, at pos: Int, maxDepth: Int) {
        self.bytes = bytes
        self.count = count
        self.pos = pos
        self.maxDepth = maxDepth
    }

    // MARK: Whole documents

    /// Validates a complete document (one value, optional surrounding whitespace).
    public mutating func parseDocument() throws(JWTError) -> JSONSpan {
        skipWhitespace()
        let span = try parseValue(depth: 0)
        skipWhitespace()
        guard pos == count else { throw JWTError(.malformed, "trailing bytes after JSON value") }
        return span
    }

    /// Validates a document that must be an object, calling `body` for each
    /// top-level member.
    public mutating func forEachTopLevelMember(
        _ body: (_ name: JSONSpan, _ value: JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        try forEachTopLevelMemberWithKey { (name, _, value) throws(JWTError) in try body(name, value) }
    }

    /// The same, also passing each name's key (computed anyway for duplicate detection).
    /// Inlined with its member loop, so `body` (the claims and header readers) is compiled
    /// into the loop instead of being called through a closure per member.
    @inline(__always)
    mutating func forEachTopLevelMemberWithKey(
        _ body: (_ name: JSONSpan, _ key: JSONNameKey, _ value: JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        skipWhitespace()
        guard pos < count, bytes[pos] == UInt8(ascii: "{") else {
            throw JWTError(.malformed, "JSON document is not an object")
        }
        try parseObjectMembersInline(depth: 1, body)
        skipWhitespace()
        guard pos == count else { throw JWTError(.malformed, "trailing bytes after JSON value") }
    }

    // MARK: Values

    /// Skips insignificant whitespace. Inlined everywhere: in tokens it is usually absent, so
    /// the first test (a byte above space cannot be whitespace) ends it in one compare.
    @usableFromInline @inline(__always)
    mutating func skipWhitespace() {
        if pos < count, bytes[pos] > 0x20 { return }
        while pos < count {
            switch bytes[pos] {
            case 0x20, 0x0A, 0x0D, 0x09: pos += 1
            default: return
            }
        }
    }

    mutating func parseValue(depth: Int) throws(JWTError) -> JSONSpan {
        guard pos < count else { throw JWTError(.malformed, "unexpected end of JSON") }
        switch bytes[pos] {
        case UInt8(ascii: "\""): return try parseString()
        case UInt8(ascii: "{"):
            let start = pos
            try parseObjectMembers(depth: depth + 1) { (_, _, _) throws(JWTError) in }
            return JSONSpan(start: start, end: pos, kind: .object)
        case UInt8(ascii: "["):
            let start = pos
            try parseArrayElements(depth: depth + 1) { (_) throws(JWTError) in }
            return JSONSpan(start: start, end: pos, kind: .array)
        case UInt8(ascii: "t"): return try parseLiteral("true", .true)
        case UInt8(ascii: "f"): return try parseLiteral("false", .false)
        case UInt8(ascii: "n"): return try parseLiteral("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try parseNumber()
        default: throw JWTError(.malformed, "unexpected byte in JSON")
        }
    }

    /// Parses `{...}` at `pos`, reporting each member; `depth` counts this object.
    /// Duplicate member names (compared after unescaping) are rejected at every
    /// depth: RFC 7515 §4 permits it, and accepting them is how
    /// parser-differential attacks work.
    mutating func parseObjectMembers(
        depth: Int, _ body: (JSONSpan, JSONNameKey, JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        try parseObjectMembersInline(depth: depth, body)
    }

    /// The member loop of `parseObjectMembers`, inlined into the top-level walks so their
    /// bodies need no closure call; nested objects go through the out-of-line wrapper.
    @inline(__always)
    mutating func parseObjectMembersInline(
        depth: Int, _ body: (JSONSpan, JSONNameKey, JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        guard depth <= maxDepth else { throw JWTError(.malformed, "JSON nested too deeply") }
        var seen = MemberNameSet()
        let base = bytes
        pos += 1
        skipWhitespace()
        if pos < count, bytes[pos] == UInt8(ascii: "}") { pos += 1; return }
        while true {
            guard pos < count, bytes[pos] == UInt8(ascii: "\"") else {
                throw JWTError(.malformed, "expected member name")
            }
            let name = try parseString()
            let key = JSONNameKey(name, in: base, readable: count)
            guard seen.insert(name, key: key, in: base) else { throw JWTError(.malformed, "duplicate member name") }
            skipWhitespace()
            guard pos < count, bytes[pos] == UInt8(ascii: ":") else { throw JWTError(.malformed, "expected ':'") }
            pos += 1
            skipWhitespace()
            // Strings and numbers, the commonest values, without the dispatch call.
            guard pos < count else { throw JWTError(.malformed, "unexpected end of JSON") }
            let first = bytes[pos]
            let value: JSONSpan
            if first == UInt8(ascii: "\"") {
                value = try parseString()
            } else if isDigit(first) || first == UInt8(ascii: "-") {
                value = try parseNumber()
            } else {
                value = try parseValue(depth: depth)
            }
            try body(name, key, value)
            skipWhitespace()
            guard pos < count else { throw JWTError(.malformed, "unterminated object") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                skipWhitespace()
                continue
            }
            guard bytes[pos] == UInt8(ascii: "}") else { throw JWTError(.malformed, "expected ',' or '}'") }
            pos += 1
            return
        }
    }

    /// Parses `[...]` at `pos`, reporting each element; `depth` counts this array.
    mutating func parseArrayElements(
        depth: Int, _ body: (JSONSpan) throws(JWTError) -> Void
    ) throws(JWTError) {
        guard depth <= maxDepth else { throw JWTError(.malformed, "JSON nested too deeply") }
        pos += 1
        skipWhitespace()
        if pos < count, bytes[pos] == UInt8(ascii: "]") { pos += 1; return }
        while true {
            let value = try parseValue(depth: depth)
            try body(value)
            skipWhitespace()
            guard pos < count else { throw JWTError(.malformed, "unterminated array") }
            if bytes[pos] == UInt8(ascii: ",") {
                pos += 1
                skipWhitespace()
                continue
            }
            guard bytes[pos] == UInt8(ascii: "]") else { throw JWTError(.malformed, "expected ',' or ']'") }
            pos += 1
            return
        }
    }

    mutating func parseLiteral(_ word: StaticString, _ kind: JSONKind) throws(JWTError) -> JSONSpan {
        let n = word.utf8CodeUnitCount
        guard count - pos >= n else { throw JWTError(.malformed, "bad JSON literal") }
        let w = word.utf8Start
        // Safety: count - pos >= n (checked above), so both n-byte windows lie inside their
        // buffers; "true" and "null" are one 4-byte compare, "false" a 4-byte and a 1-byte one.
        let here = UnsafeRawPointer(bytes + pos), literal = UnsafeRawPointer(w)
        guard here.loadUnaligned(as: UInt32.self) == literal.loadUnaligned(as: UInt32.self),
            n == 4 || here.load(fromByteOffset: 4, as: UInt8.self) == literal.load(fromByteOffset: 4, as: UInt8.self)
        else { throw JWTError(.malformed, "bad JSON literal") }
        let span = JSONSpan(start: pos, end: pos + n, kind: kind)
        pos += n
        return span
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`, on a local index (`pos` is
    /// stored once, not once per digit); digit runs eight bytes at a time (`digitRun`).
    @inline(never)
    mutating func parseNumber() throws(JWTError) -> JSONSpan {
        let bytes = self.bytes, count = self.count
        let start = pos
        var i = pos
        defer { pos = i }
        if bytes[i] == UInt8(ascii: "-") { i += 1 }
        guard i < count, isDigit(bytes[i]) else { throw JWTError(.malformed, "bad JSON number") }
        i = bytes[i] == UInt8(ascii: "0") ? i + 1 : digitRun(from: i + 1)
        if i < count, bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard i < count, isDigit(bytes[i]) else { throw JWTError(.malformed, "bad JSON number") }
            i = digitRun(from: i + 1)
        }
        if i < count, bytes[i] | 0x20 == UInt8(ascii: "e") {
            i += 1
            if i < count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { i += 1 }
            guard i < count, isDigit(bytes[i]) else { throw JWTError(.malformed, "bad JSON number") }
            i = digitRun(from: i + 1)
        }
        return JSONSpan(start: start, end: i, kind: .number)
    }

    /// The index of the first non-digit at or after `i` (or `count`). Eight bytes at a time
    /// while eight remain: a byte is a digit when its high nibble is 3, and still 3 after
    /// adding 6. The add can carry only out of a byte >= 0xFA, itself flagged by the first
    /// test, and carries only move upwards, so the lowest flagged byte is exact.
    @inline(__always)
    func digitRun(from start: Int) -> Int {
        var i = start
        let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0, threes: UInt64 = 0x3030_3030_3030_3030
        while count &- i >= 8 {
            // Safety: i + 8 <= count, so the load lies inside the buffer.
            let x = UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self)
            let nonDigit = ((x & highs) ^ threes) | (((x &+ 0x0606_0606_0606_0606) & highs) ^ threes)
            if nonDigit != 0 { return i &+ nonDigit.trailingZeroBitCount >> 3 }
            i &+= 8
        }
        while i < count, isDigit(bytes[i]) { i &+= 1 }
        return i
    }

    @inline(__always) func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }

    /// Parses a string at `pos` (on the opening quote), validating UTF-8 and escapes.
    ///
    /// The scan runs on a local index and stores `pos` only around the rare
    /// escape and non-ASCII steps. While 16 bytes remain, one block mask
    /// (`jkernel_json_special_mask16`, inline SSE2) either skips 16 plain bytes
    /// or lands exactly on the first special byte, so a short member name costs
    /// one block test; the last bytes go 8 at a time (`specialBytes`) and then
    /// one at a time. Only plain bytes are ever skipped: every quote, backslash,
    /// control or non-ASCII byte is decided by the scalar code below. Index
    /// arithmetic wraps (`&+`): every index stays within `start...count`.
    /// Inlined where member names and string values are read, so `pos` can
    /// stay in a register.
    @inline(__always)
    mutating func parseString() throws(JWTError) -> JSONSpan {
        let bytes = self.bytes, count = self.count
        let start = pos &+ 1
        var i = start
        var escaped = false
        while true {
            if count &- i >= 16 {
                // Safety: i + 16 <= count, so the 16-byte load lies inside the buffer.
                let mask = jkernel_json_special_mask16(bytes + i)
                if mask == 0 {
                    i &+= 16
                    continue
                }
                i &+= Int(truncatingIfNeeded: mask.trailingZeroBitCount)
            } else if count &- i >= 8 {
                // Safety: i + 8 <= count.
                let special = Self.specialBytes(UnsafeRawPointer(bytes + i).loadUnaligned(as: UInt64.self))
                if special == 0 {
                    i &+= 8
                    continue
                }
                i &+= special.trailingZeroBitCount >> 3
            } else if i >= count {
                pos = i
                throw JWTError(.malformed, "unterminated JSON string")
            }
            // Past the block tests `bytes[i]` is the first special byte; in the last 7 bytes it is
            // any byte, decided here one at a time.
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                pos = i &+ 1
                return JSONSpan(start: start, end: i, kind: .string, escaped: escaped)
            } else if b == UInt8(ascii: "\\") {
                escaped = true
                pos = i
                try parseEscape()
                i = pos
            } else if b < 0x20 {
                pos = i
                throw JWTError(.malformed, "control character in JSON string")
            } else if b < 0x80 {
                i &+= 1
            } else {
                pos = i
                try parseUTF8Sequence()
                i = pos
            }
        }
    }

    /// How many leading bytes of `buffer` the vector scan skips as plain string
    /// content (`jkernel_json_plain_prefix`), for the differential tests and `FuzzJSON`.
    public static func plainPrefixLength(_ buffer: UnsafeRawBufferPointer) -> Int {
        guard let base = buffer.baseAddress else { return 0 }
        return jkernel_json_plain_prefix(base.assumingMemoryBound(to: UInt8.self), buffer.count)
    }

    /// The high bit of each of 8 bytes (little-endian) that may end the plain
    /// run of a string: a quote, a backslash, a control character or a
    /// non-ASCII byte. The classic "has zero byte" / "has byte less than"
    /// tests: the lowest set bit is always exact (bits above it may be false
    /// positives from borrows), which is all the caller uses.
    @inline(__always)
    static func specialBytes(_ x: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101, highs: UInt64 = 0x8080_8080_8080_8080
        let quote = x ^ (ones &* 0x22), backslash = x ^ (ones &* 0x5C)
        let zeroInQuote = (quote &- ones) & ~quote
        let zeroInBackslash = (backslash &- ones) & ~backslash
        let belowSpace = (x &- ones &* 0x20) & ~x
        return (zeroInQuote | zeroInBackslash | belowSpace | x) & highs
    }

    mutating func parseEscape() throws(JWTError) {
        guard pos + 1 < count else { throw JWTError(.malformed, "bad JSON escape") }
        switch bytes[pos + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            pos += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: pos + 2)
            pos += 6
            if unit >= 0xD800 && unit <= 0xDBFF {
                guard pos + 1 < count, bytes[pos] == UInt8(ascii: "\\"), bytes[pos + 1] == UInt8(ascii: "u") else {
                    throw JWTError(.malformed, "unpaired surrogate in JSON string")
                }
                let low = try hex4(at: pos + 2)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw JWTError(.malformed, "unpaired surrogate in JSON string")
                }
                pos += 6
            } else if unit >= 0xDC00 && unit <= 0xDFFF {
                throw JWTError(.malformed, "unpaired surrogate in JSON string")
            }
        default:
            throw JWTError(.malformed, "bad JSON escape")
        }
    }

    func hex4(at i: Int) throws(JWTError) -> UInt32 {
        guard i + 4 <= count else { throw JWTError(.malformed, "bad \\u escape") }
        var v: UInt32 = 0
        for k in 0..<4 {
            guard let h = hexValue(bytes[i + k]) else { throw JWTError(.malformed, "bad \\u escape") }
            v = v << 4 | UInt32(h)
        }
        return v
    }

    /// One multi-byte UTF-8 sequence per RFC 3629 (no overlongs, surrogates, or > U+10FFFF).
    mutating func parseUTF8Sequence() throws(JWTError) {
        let b0 = bytes[pos]
        let need: Int
        var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: need = 1
        case 0xE0: need = 2; lo = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: need = 2
        case 0xED: need = 2; hi = 0x9F
        case 0xF0: need = 3; lo = 0x90
        case 0xF1...0xF3: need = 3
        case 0xF4: need = 3; hi = 0x8F
        default: throw JWTError(.malformed, "invalid UTF-8")
        }
        guard pos + need < count else { throw JWTError(.malformed, "invalid UTF-8") }
        let b1 = bytes[pos + 1]
        guard b1 >= lo && b1 <= hi else { throw JWTError(.malformed, "invalid UTF-8") }
        for k in stride(from: 2, through: need, by: 1) where bytes[pos + k] & 0xC0 != 0x80 {
            throw JWTError(.malformed, "invalid UTF-8")
        }
        pos += need + 1
    }
}

@inline(__always)
func hexValue(_ b: UInt8) -> UInt8? {
    switch b {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return b - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return b - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return b - UInt8(ascii: "A") + 10
    default: return nil
    }
}
