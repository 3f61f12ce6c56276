/// The issuers whose hash falls in one stripe, as one immutable snapshot.
/// A stripe holds few issuers, so a lookup scans it comparing hashes first.
final class KeyStoreStripe: Sendable {
    let entries: [IssuerKeys]

    init(_ entries: [IssuerKeys]) { self.entries = entries }

    static let empty = KeyStoreStripe([])

    @inline(__always)
    func entry(hash: UInt64, _ issuer: UnsafeRawBufferPointer) -> IssuerKeys? {
        for entry in entries where entry.issuer.matches(hash: hash, issuer) { return entry }
        return nil
    }

    func entry(_ id: IssuerID) -> IssuerKeys? {
        for entry in entries where entry.issuer == id { return entry }
        return nil
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
