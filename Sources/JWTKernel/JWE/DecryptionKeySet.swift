/// An immutable set of JWE decryption keys, kept apart from `JWKSet`: verification never reads it, and
/// decryption never reads a `JWKSet`. Keys that could not be loaded are kept with their reasons.
public struct DecryptionKeySet: Sendable {
    public let keys: [DecryptionKey]
    /// Keys of the document that were refused, with the reason (a signature key, a public key, RSA1_5...).
    public let rejected: [KeyError]

    public init(keys: [DecryptionKey], rejected: [KeyError] = []) {
        self.keys = keys
        self.rejected = rejected
    }

    /// A JWKS (`{"keys":[...]}`) or a single JWK with private parts, or one PEM private key. Keys meant for
    /// signatures (`use: sig`, a JWS `alg`, `key_ops` without `decrypt`/`unwrapKey`) and public keys are
    /// refused with their reasons; a document that yields no key at all is refused (with the first refusal's code).
    public init(document bytes: some Collection<UInt8>) throws(KeyError) {
        try self.init(KeyDocument(bytes))
    }

    /// A key document told apart as every key file is (`KeyDocument`: JSON, or PEM).
    public init(_ document: KeyDocument) throws(KeyError) {
        self = try Self.reading(document)
        // No usable key: the first refusal's code (`wrong_key_use` for a file of signature keys), as a
        // verification key load reports it.
        guard !keys.isEmpty else {
            throw KeyError(
                rejected.first?.code ?? .notAKeySet,
                "no decryption key in the document" + (rejected.first.map { ": \($0)" } ?? ""))
        }
    }

    /// Several documents as one set (the key files of one place, each of which may hold verification keys, as
    /// NGINX Plus reads both kinds from the same files): a document without decryption keys adds only its
    /// refusals; one that is not a key document at all (not JSON, not a JWKS or JWK, not PEM) refuses the whole
    /// load, naming it by position from 1, and so does a union without any decryption key.
    public init(documents: [KeyDocument]) throws(KeyError) {
        var keys: [DecryptionKey] = [], rejected: [KeyError] = []
        for (i, document) in documents.enumerated() {
            do {
                let set = try Self.reading(document)
                keys += set.keys
                rejected += set.rejected
            } catch {
                throw KeyError(error.code, kid: error.kid, "document #\(i + 1): \(error.reason)")
            }
        }
        guard !keys.isEmpty else {
            throw KeyError(
                rejected.first?.code ?? .notAKeySet,
                "no decryption key in the documents" + (rejected.first.map { ": \($0)" } ?? ""))
        }
        self.init(keys: keys, rejected: rejected)
    }

    /// One document's keys and refusals, empty allowed. A PEM that is not a private key is a refusal, not an
    /// error: a public key or certificate is a verification key.
    private static func reading(_ document: KeyDocument) throws(KeyError) -> DecryptionKeySet {
        switch document {
        case .pem(let text):
            guard text.contains("PRIVATE KEY-----") else {
                return DecryptionKeySet(
                    keys: [],
                    rejected: [KeyError(.wrongUse, "PEM holds a public key or certificate: not a decryption key")])
            }
            return DecryptionKeySet(keys: [try DecryptionKey(pem: text)])
        case .json(let json):
            let document: JSONValue
            do { document = try JSONValue.parse(json) } catch {
                throw KeyError(.notAKeySet, "not valid JSON: \(error.message(locatedIn: json))")
            }
            guard document.objectValue != nil else { throw KeyError(.notAKeySet, "a key set must be a JSON object") }
            if let list = document["keys"] {
                guard let entries = list.arrayValue else { throw KeyError(.notAKeySet, "\"keys\" is not an array") }
                var loaded: [DecryptionKey] = [], rejected: [KeyError] = []
                for (i, entry) in entries.enumerated() {
                    do { loaded.append(try DecryptionKey(jwk: entry)) } catch {
                        rejected.append(error.naming(error.kid ?? "#\(i)"))
                    }
                }
                return DecryptionKeySet(keys: loaded, rejected: rejected)
            } else if document["kty"] != nil {
                do { return DecryptionKeySet(keys: [try DecryptionKey(jwk: document)]) } catch {
                    return DecryptionKeySet(keys: [], rejected: [error])
                }
            } else {
                throw KeyError(.notAKeySet, "not a JWKS (no \"keys\") or a JWK (no \"kty\")")
            }
        }
    }

    /// The keys to try for a token: those whose `kid` is the token's (as for signatures, no other key is tried
    /// then, so a named key pinned to another algorithm is `key_alg_mismatch`); when no key has that `kid`, or the
    /// token names none, the keys without a `kid` (every key when the token names none); each must allow `alg`.
    func candidates(kid: String?, alg: KeyManagementAlgorithm) throws(JWTError) -> [DecryptionKey] {
        let named = kid.map { kid in keys.filter { $0.kid == kid } } ?? []
        let pool = !named.isEmpty ? named : keys.filter { kid == nil || $0.kid == nil }
        let usable = pool.filter { $0.algorithms.contains(alg) }
        guard usable.isEmpty else { return usable }
        if !named.isEmpty || kid == nil {
            throw JWTError(.keyAlgMismatch, "no decryption key for the token may decrypt its alg")
        }
        throw JWTError(.unknownKid, "no decryption key has the token's kid")
    }
}
