import CXXHash

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
            if let twin = kept.first(where: { $0.kid == key.kid && $0.algorithms.rawValue & key.algorithms.rawValue != 0 }) {
                if twin.hasSameMaterial(as: key) && twin.algorithms == key.algorithms { continue }
                ambiguous.insert(ObjectIdentifier(twin))
                ambiguous.insert(ObjectIdentifier(key))
            }
            kept.append(key)
        }
        for key in kept where ambiguous.contains(ObjectIdentifier(key)) {
            rejected.append(KeyError(kid: key.kid, "several keys share this kid"))
        }
        self.keys = kept.filter { !ambiguous.contains(ObjectIdentifier($0)) }
        self.rejected = rejected
    }

    /// Accepts a JWKS (`{"keys":[...]}`), a single JWK, or the `{kid: PEM}`
    /// certificate map that Google and Firebase publish.
    ///
    /// A published key set that mixes HMAC secrets with public keys is a
    /// configuration mistake (a secret someone published) and the classic
    /// setting for algorithm confusion, so by default the secrets are refused
    /// and the public keys kept. `allowMixedKeyTypes` keeps both, for a
    /// locally configured file: every key stays bound to its algorithm family.
    public init(json: some Collection<UInt8>, allowMixedKeyTypes: Bool = false) throws(KeyError) {
        let document: JSONValue
        do { document = try JSONValue.parse(json) } catch { throw KeyError("not valid JSON: \(error.message)") }
        guard let members = document.objectValue else { throw KeyError("a key set must be a JSON object") }

        var loaded: [VerificationKey] = []
        var rejected: [KeyError] = []
        if let list = document["keys"] {
            guard let entries = list.arrayValue else { throw KeyError("\"keys\" is not an array") }
            for (i, entry) in entries.enumerated() {
                do { loaded.append(try VerificationKey(jwk: entry)) } catch {
                    rejected.append(KeyError(kid: error.kid ?? "#\(i)", error.reason))
                }
            }
        } else if document["kty"] != nil {
            loaded.append(try VerificationKey(jwk: document))
        } else if !members.isEmpty, members.allSatisfy({ $0.value.stringValue?.hasPrefix("-----BEGIN") == true }) {
            for member in members {
                do { loaded.append(try VerificationKey(pem: member.value.stringValue!, kid: member.name)) } catch {
                    rejected.append(error)
                }
            }
        } else {
            throw KeyError("not a JWKS (no \"keys\"), a JWK (no \"kty\") or a {kid: PEM} map")
        }
        if !allowMixedKeyTypes, loaded.contains(where: { $0.pkey != nil }) {
            for key in loaded where key.pkey == nil {
                rejected.append(KeyError(kid: key.kid, "HMAC secret in a key set that holds public keys"))
            }
            loaded.removeAll { $0.pkey == nil }
        }
        self.init(keys: loaded, rejected: rejected)
    }

    /// The keys of both sets, for verifiers that trust several sources.
    public func merging(_ other: JWKSet) -> JWKSet {
        JWKSet(keys: keys + other.keys, rejected: rejected + other.rejected)
    }

    // MARK: Lookup (hot path)

    /// Whether this exact key object is in the set (a cached verification's key still trusted).
    func contains(_ key: VerificationKey) -> Bool {
        for k in keys where k === key { return true }
        return false
    }

    /// The key for a token, per RFC 8725 §3.1 and §3.10: by `kid` when there is
    /// one (and then that key only), otherwise the single key that fits `alg`.
    public func select(kid: UnsafeRawBufferPointer?, alg: JWTAlgorithm) throws(JWTError) -> VerificationKey {
        guard let kid else {
            var found: VerificationKey?
            for key in keys where key.algorithms.contains(alg) {
                guard found == nil else { throw JWTError(.unknownKid, "token has no kid and several keys fit its alg") }
                found = key
            }
            guard let found else { throw JWTError(.unknownKid, "token has no kid and no key fits its alg") }
            return found
        }
        let hash = XXH3_64bits(kid.baseAddress, kid.count)
        var named = false
        for key in keys where key.kidHash == hash && key.kid != nil && key.kidBytes.elementsEqual(kid) {
            if key.algorithms.contains(alg) { return key }
            named = true
        }
        throw named ? JWTError(.keyAlgMismatch, "the key named by kid does not verify this alg")
                    : JWTError(.unknownKid, "no key with this kid")
    }
}
