/// The issuers whose hash falls in one stripe, as one immutable snapshot:
/// their entries, and an open-addressing index over them keyed by each
/// issuer's XXH3 (linear probing, at most half full), so a lookup costs one or
/// two probes however many issuers the stripe holds.
///
/// Built whole by a writer and never changed after, so readers use it without
/// a lock. The index holds unowned references: `entries` owns them, and the
/// index is freed with the snapshot.
// Safety: @unchecked because `slots` is written only in init, before the snapshot is published, and read-only after.
final class KeyStoreStripe: @unchecked Sendable {
    /// The owning list, in no particular order.
    let entries: [IssuerKeys]
    private let slots: UnsafeMutablePointer<Slot>
    private let slotMask: Int

    private struct Slot {
        var hash: UInt64
        /// nil: an empty slot (ends a probe sequence).
        var entry: Unmanaged<IssuerKeys>?
    }

    init(_ entries: [IssuerKeys]) {
        self.entries = entries
        var capacity = 2
        while capacity < entries.count * 2 { capacity <<= 1 }
        slots = .allocate(capacity: capacity)
        slots.initialize(repeating: Slot(hash: 0, entry: nil), count: capacity)
        slotMask = capacity - 1
        for entry in entries {
            var i = Self.home(entry.issuer.hash, slotMask)
            while slots[i].entry != nil { i = (i + 1) & slotMask }
            slots[i] = Slot(hash: entry.issuer.hash, entry: Unmanaged.passUnretained(entry))
        }
    }

    deinit { slots.deallocate() }

    static let empty = KeyStoreStripe([])

    /// The slot where a probe for `hash` starts. The low bits chose the stripe,
    /// so the index uses the high half.
    @inline(__always)
    private static func home(_ hash: UInt64, _ mask: Int) -> Int { Int(truncatingIfNeeded: hash >> 32) & mask }

    /// The entry for an issuer given as bytes and their XXH3, lent to `body`
    /// without retaining it (the snapshot, which the caller keeps alive, owns it).
    @inline(__always)
    func withEntry<R, E: Error>(
        hash: UInt64, _ issuer: UnsafeRawBufferPointer, _ body: (IssuerKeys?) throws(E) -> R
    ) throws(E) -> R {
        var i = Self.home(hash, slotMask)
        while let entry = slots[i].entry {
            if slots[i].hash == hash,
                entry._withUnsafeGuaranteedRef({ $0.issuer.bytes.withUnsafeBytes { $0.elementsEqual(issuer) } })
            {
                // Result keeps the typed error through the rethrowing `_withUnsafeGuaranteedRef`.
                return try entry._withUnsafeGuaranteedRef { e in Result { () throws(E) -> R in try body(e) } }.get()
            }
            i = (i + 1) & slotMask
        }
        return try body(nil)
    }

    func entry(_ id: IssuerID) -> IssuerKeys? {
        id.bytes.withUnsafeBytes { withEntry(hash: id.hash, $0) { $0 } }
    }

    /// A copy with `entry` added or replacing the one for the same issuer.
    func replacing(_ entry: IssuerKeys) -> KeyStoreStripe {
        var next = entries.filter { $0.issuer != entry.issuer }
        next.append(entry)
        return KeyStoreStripe(next)
    }

    func removing(_ id: IssuerID) -> KeyStoreStripe {
        KeyStoreStripe(entries.filter { $0.issuer != id })
    }
}
