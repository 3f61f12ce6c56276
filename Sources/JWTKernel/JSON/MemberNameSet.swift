/// Member names seen so far in one object, for duplicate detection without
/// allocating for ordinary objects (the first 64 names live on the stack).
struct MemberNameSet {
    private var inline = InlineArray<64, (hash: UInt64, span: JSONSpan)>(repeating: (0, JSONSpan(start: 0, end: 0, kind: .string)))
    private var overflow: [(hash: UInt64, span: JSONSpan)] = []
    private var count = 0

    /// Adds `name`; false if an equal name (after unescaping) was already there.
    mutating func insert(_ name: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        let h = JSONString.hash(name, in: bytes)
        for k in 0..<min(count, 64) where inline[k].hash == h && JSONString.equals(inline[k].span, name, in: bytes) {
            return false
        }
        for entry in overflow where entry.hash == h && JSONString.equals(entry.span, name, in: bytes) {
            return false
        }
        if count < 64 { inline[count] = (h, name) } else { overflow.append((h, name)) }
        count += 1
        return true
    }
}
