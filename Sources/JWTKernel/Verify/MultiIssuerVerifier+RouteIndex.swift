internal import CXXHash

/// The exact issuers of a MultiIssuerVerifier, indexed by the XXH3 of their
/// bytes (open addressing, linear probing, at most half full), so routing costs
/// one or two probes with 10,000 issuers as with one. Templates are not in it:
/// they are tried after, in order, as before.
struct IssuerRouteIndex: Sendable {
    /// Per slot: the issuer's hash and its route + 1 (0: empty).
    private let hashes: [UInt64]
    private let routes: [Int32]
    private let mask: Int

    /// `patterns[i]` is route i; of several identical exact issuers the first wins.
    init(_ patterns: [IssuerPattern]) {
        let exact = patterns.indices.filter { !patterns[$0].isTemplate }
        var capacity = 2
        while capacity < exact.count * 2 { capacity <<= 1 }
        var hashes = [UInt64](repeating: 0, count: capacity)
        var routes = [Int32](repeating: 0, count: capacity)
        let mask = capacity - 1
        for i in exact {
            guard case .exact(let bytes) = patterns[i] else { continue }
            let h = bytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
            var slot = Int(truncatingIfNeeded: h) & mask
            var duplicate = false
            while routes[slot] != 0 {
                if hashes[slot] == h, case .exact(let other) = patterns[Int(routes[slot]) - 1], other == bytes {
                    duplicate = true
                    break
                }
                slot = (slot + 1) & mask
            }
            if !duplicate {
                hashes[slot] = h
                routes[slot] = Int32(i + 1)
            }
        }
        self.hashes = hashes
        self.routes = routes
        self.mask = mask
    }

    /// The route whose exact issuer is `iss` (decoded bytes).
    @inline(__always)
    func route(_ iss: UnsafeRawBufferPointer, patterns: [IssuerPattern]) -> Int? {
        let h = XXH3_64bits(iss.baseAddress, iss.count)
        var slot = Int(truncatingIfNeeded: h) & mask
        while routes[slot] != 0 {
            let r = Int(routes[slot]) - 1
            if hashes[slot] == h, patterns[r].matches(iss: iss, tid: nil) { return r }
            slot = (slot + 1) & mask
        }
        return nil
    }
}
