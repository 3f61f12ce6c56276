/// Member names seen so far in one object, for duplicate detection.
///
/// Ordinary objects (up to 32 names) allocate nothing: the keys live in fixed
/// inline buffers, found through a 64-slot open-addressing table of one-byte
/// indices (at most half full, so a probe ends within a few slots and zeroing
/// the table costs one cache line). Larger objects move on to an
/// open-addressing hash table on the heap, so a hostile token of thousands of
/// members costs O(n), never O(n²). A duplicate is decided on the decoded
/// names: exact keys settle it, long names are compared in full on a key match.
///
/// Every method mutates or is inlined: a large struct passed by value to a
/// helper was copied (memcpy) on each call, which cost more than the lookup.
struct MemberNameSet {
    private static let inlineCapacity = 32
    /// Slot -> index of the name in `keys` plus one; 0: empty.
    private var table = InlineArray<64, UInt8>(repeating: 0)
    private var keys = InlineArray<32, UInt64>(repeating: 0)
    /// `start << 32 | end` of each inline name (larger offsets go to the table).
    private var spans = InlineArray<32, UInt64>(repeating: 0)
    private var inlineCount = 0
    private var large: LargeNameTable?

    /// Adds `name`, whose key is `key`; false if an equal name was already there.
    /// Inlined into the member loop; the full compare and the large table stay out of line.
    @inline(__always)
    mutating func insert(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        let k = key.value
        var slot = Int(truncatingIfNeeded: (k &* 0x9E37_79B9_7F4A_7C15) >> 58)  // 6 bits: one of 64
        // At most 32 of the 64 slots are taken, so the probe always reaches an empty slot.
        while table[slot] != 0 {
            let i = Int(table[slot]) - 1
            if keys[i] == k {
                if key.isExact { return false }
                let earlier = JSONSpan(
                    start: Int(spans[i] >> 32), end: Int(spans[i] & 0xFFFF_FFFF), kind: .string, escaped: true)
                if Self.equalNames(earlier, name, in: bytes) { return false }
            }
            slot = (slot + 1) & 63
        }
        if inlineCount < Self.inlineCapacity, name.end <= Int(UInt32.max) {
            keys[inlineCount] = k
            spans[inlineCount] = UInt64(name.start) << 32 | UInt64(name.end)
            inlineCount += 1
            table[slot] = UInt8(truncatingIfNeeded: inlineCount)
            return true
        }
        return insertLarge(name, key: key, in: bytes)
    }

    @inline(never)
    private mutating func insertLarge(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        if large == nil { large = LargeNameTable() }
        return large!.insert(name, key: key, in: bytes)
    }

    @inline(never)
    private static func equalNames(_ a: JSONSpan, _ b: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        JSONString.equals(a, b, in: bytes)
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
