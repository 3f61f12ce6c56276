/// Member names seen so far in one object, for duplicate detection without
/// allocating for ordinary objects: the first 32 names' keys live in a fixed
/// inline buffer, later ones in an array. A 128-bit Bloom filter over the keys
/// skips the scan for almost every new name, so an object of n members costs
/// O(n), not O(n²). A duplicate is decided on the decoded names: exact keys
/// settle it, long names are compared in full.
struct MemberNameSet {
    private static let inlineCapacity = 32
    private var keys = InlineArray<32, UInt64>(repeating: 0)
    /// `start << 32 | end` of each inline name (token JSON is far below 4 GiB; larger spans go to `overflow`).
    private var spans = InlineArray<32, UInt64>(repeating: 0)
    private var overflow: [(key: UInt64, span: JSONSpan)] = []
    private var inlineCount = 0
    private var bloomLow: UInt64 = 0, bloomHigh: UInt64 = 0

    /// Adds `name`, whose key is `key`; false if an equal name was already there.
    mutating func insert(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        let k = key.value
        let slot = (k &* 0x9E37_79B9_7F4A_7C15) >> 57   // 7 bits: one of 128
        let bit: UInt64 = 1 << (slot & 63)
        let seenBefore = slot < 64 ? bloomLow & bit != 0 : bloomHigh & bit != 0
        if seenBefore, contains(name, key: key, in: bytes) { return false }
        if slot < 64 { bloomLow |= bit } else { bloomHigh |= bit }
        if inlineCount < Self.inlineCapacity, name.end <= Int(UInt32.max) {
            keys[inlineCount] = k
            spans[inlineCount] = UInt64(name.start) << 32 | UInt64(name.end)
            inlineCount += 1
        } else {
            overflow.append((k, name))
        }
        return true
    }

    private mutating func contains(_ name: JSONSpan, key: JSONNameKey, in bytes: UnsafePointer<UInt8>) -> Bool {
        let k = key.value
        for i in 0..<inlineCount where keys[i] == k {
            if key.isExact { return true }
            let earlier = JSONSpan(start: Int(spans[i] >> 32), end: Int(spans[i] & 0xFFFF_FFFF), kind: .string, escaped: true)
            if JSONString.equals(earlier, name, in: bytes) { return true }
        }
        for entry in overflow where entry.key == k {
            if key.isExact || JSONString.equals(entry.span, name, in: bytes) { return true }
        }
        return false
    }
}
