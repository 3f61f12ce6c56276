/// An immutable set of trusted keys, indexed by `kid`.
///
/// Loading is forgiving per key and strict per document: a key that cannot be
/// used (weak, malformed, wrong `use`) is listed in `rejected` and the rest
/// still load, but a document that is not a key set at all is an error.
public struct JWKSet: Sendable {
    public let keys: [VerificationKey]
    /// Keys that were present in the source but refused, with the reason.
    public let rejected: [KeyError]

    /// Keys sharing a `kid` are ambiguous (which one a token names would depend
    /// on order), so all of them are refused when their algorithms overlap;
    /// exact duplicates of one key (same material, same algorithms) collapse to
    /// one. A key whose `kid` also names a refused entry is refused too: the
    /// publisher may have meant that other entry.
    public init(keys: [VerificationKey], rejected: [KeyError] = []) {
        var kept: [VerificationKey] = []
        var rejected = rejected
        var ambiguous = Set<ObjectIdentifier>()
        let refusedKids = Set(rejected.compactMap(\.kid))
        for key in keys {
            guard let kid = key.kid else { kept.append(key); continue }
            if refusedKids.contains(kid) { ambiguous.insert(ObjectIdentifier(key)) }
            if let twin = kept.first(where: {
                $0.kid == key.kid && $0.algorithms.rawValue & key.algorithms.rawValue != 0
            }) {
                if twin.hasSameMaterial(as: key) && twin.algorithms == key.algorithms { continue }
                ambiguous.insert(ObjectIdentifier(twin))
                ambiguous.insert(ObjectIdentifier(key))
            }
            kept.append(key)
        }
        for key in kept where ambiguous.contains(ObjectIdentifier(key)) {
            rejected.append(KeyError(.ambiguousKid, kid: key.kid, "several keys share this kid"))
        }
        self.keys = kept.filter { !ambiguous.contains(ObjectIdentifier($0)) }
        self.rejected = rejected
    }

    /// One warning per key that loaded against an RFC rule because the load allowed it: an HMAC secret
    /// shorter than its hash output (RFC 7518 §3.2, `allowShortHMACSecrets`). Named by `kid`, or by
    /// `#index` in `keys` without one; code `weak_key`. Empty unless a load allowed such a key.
    public var warnings: [KeyError] {
        keys.enumerated().compactMap { (i, key) -> KeyError? in
            guard let alg = key.shortSecretShortfall, case .oct(let n) = key.type else { return nil }
            return KeyError(
                .weakKey, kid: key.kid ?? "#\(i)",
                "HMAC secret of \(n) bytes is shorter than the \(alg.hashLength)-byte hash output of \(alg.rawValue) "
                    + "(RFC 7518 section 3.2); loaded because short HMAC secrets are allowed")
        }
    }

    /// The keys of both sets, for verifiers that trust several sources.
    public func merging(_ other: JWKSet) -> JWKSet {
        JWKSet(keys: keys + other.keys, rejected: rejected + other.rejected)
    }
}
