/// Member names seen so far in one object, for duplicate detection.
///
/// Ordinary objects (up to 32 names) allocate nothing: the keys live in fixed
/// inline buffers, and a 128-bit Bloom filter over them skips the scan for
/// almost every new name. Larger objects move to an open-addressing hash
/// table, so a hostile token of thousands of members costs O(n), never O(n²).
/// A duplicate is decided on the decoded names: exact keys settle it, long
/// names are compared in full on a key match.
struct MemberNameSet {
    private static let inlineCapacity = 32
    private var keys = InlineArray<32, UInt64>(repeating: 0)
    /// `start << 32 | end` of each inline name (larger offsets go to the table).
    private var spans = InlineArray<32, UInt64>(repeating: 0)
    private var inlineCount = 0
    private var bloomLow: UInt64 = 0, bloomHigh: UInt64 = 0
    private var large = LargeNameTable()

    /// Adds `name`, whose key is `key`; false if an equal name was already there.
    mutating func insert(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        let k = key.value
        let slot = (k &* 0x9E37_79B9_7F4A_7C15) >> 57  // 7 bits: one of 128
        let bit: UInt64 = 1 << (slot & 63)
        let maybeInline = slot < 64 ? bloomLow & bit != 0 : bloomHigh & bit != 0
        if maybeInline, inlineContains(name, key: key, in: bytes) { return false }
        if inlineCount < Self.inlineCapacity, name.end <= Int(UInt32.max) {
            if slot < 64 { bloomLow |= bit } else { bloomHigh |= bit }
            keys[inlineCount] = k
            spans[inlineCount] = UInt64(name.start) << 32 | UInt64(name.end)
            inlineCount += 1
            return true
        }
        return large.insert(name, key: key, in: bytes)
    }

    private func inlineContains(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        let k = key.value
        for i in 0..<inlineCount where keys[i] == k {
            if key.isExact { return true }
            let earlier = JSONSpan(
                start: Int(spans[i] >> 32), end: Int(spans[i] & 0xFFFF_FFFF), kind: .string, escaped: true)
            if JSONString.equals(earlier, name, in: bytes) { return true }
        }
        return false
    }
}

/// The names of a large object beyond the inline ones: an open-addressing table
/// of indices into `entries`, kept at most half full.
private struct LargeNameTable {
    private var entries: [(key: UInt64, span: JSONSpan)] = []
    private var slots: [Int32] = []  // -1: empty

    mutating func insert(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        if (entries.count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = Int(truncatingIfNeeded: (key.value &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
        while slots[i] >= 0 {
            let earlier = entries[Int(slots[i])]
            if earlier.key == key.value, key.isExact || JSONString.equals(earlier.span, name, in: bytes) {
                return false
            }
            i = (i + 1) & mask
        }
        slots[i] = Int32(entries.count)
        entries.append((key.value, name))
        return true
    }

    private mutating func grow() {
        let size = max(64, slots.count * 2)
        slots = Array(repeating: -1, count: size)
        let mask = size - 1
        for (index, entry) in entries.enumerated() {
            var i = Int(truncatingIfNeeded: (entry.key &* 0x9E37_79B9_7F4A_7C15) >> 32) & mask
            while slots[i] >= 0 { i = (i + 1) & mask }
            slots[i] = Int32(index)
        }
    }
}
