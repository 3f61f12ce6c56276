internal import CXXHash

/// The exact issuers of a MultiIssuerVerifier, indexed by the XXH3 of their
/// bytes (open addressing, linear probing, at most half full), so routing costs
/// one or two probes with 10,000 issuers as with one. Templates are not in it:
/// they are tried after, in order, as before.
struct IssuerRouteIndex: Sendable {
    /// Per slot: the issuer's hash and its route + 1 (0: empty), side by side so a probe reads one cache line.
    private let slots: [Slot]
    private let mask: Int

    private struct Slot {
        var hash: UInt64 = 0
        var route: Int = 0
    }

    /// `patterns[i]` is route i; of several identical exact issuers the first wins.
    init(_ patterns: [IssuerPattern]) {
        let exact = patterns.indices.filter { !patterns[$0].isTemplate }
        var capacity = 2
        while capacity < exact.count * 2 { capacity <<= 1 }
        var slots = [Slot](repeating: Slot(), count: capacity)
        let mask = capacity - 1
        for i in exact {
            guard case .exact(let bytes) = patterns[i] else { continue }
            let h = bytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
            var slot = Int(truncatingIfNeeded: h) & mask
            var duplicate = false
            while slots[slot].route != 0 {
                if slots[slot].hash == h, case .exact(let other) = patterns[slots[slot].route - 1], other == bytes {
                    duplicate = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if !duplicate { slots[slot] = Slot(hash: h, route: i + 1) }
        }
        self.slots = slots
        self.mask = mask
    }

    /// The route whose exact issuer is `iss` (decoded bytes).
    @inline(__always)
    func route(_ iss: UnsafeRawBufferPointer, patterns: [IssuerPattern]) -> Int? {
        let h = XXH3_64bits(iss.baseAddress, iss.count)
        var slot = Int(truncatingIfNeeded: h) & mask
        while slots[slot].route != 0 {
            let r = slots[slot].route - 1
            if slots[slot].hash == h, patterns[r].matches(iss: iss, tid: nil) { return r }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
