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
    /// refused with their reasons; a document that yields no key at all is refused.
    public init(document bytes: some Collection<UInt8>) throws(KeyError) {
        try self.init(KeyDocument(bytes))
    }

    /// A key document told apart as every key file is (`KeyDocument`: JSON, or PEM).
    public init(_ document: KeyDocument) throws(KeyError) {
        switch document {
        case .pem(let text):
            self.init(keys: [try DecryptionKey(pem: text)])
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
                self.init(keys: loaded, rejected: rejected)
            } else if document["kty"] != nil {
                self.init(keys: [try DecryptionKey(jwk: document)])
            } else {
                throw KeyError(.notAKeySet, "not a JWKS (no \"keys\") or a JWK (no \"kty\")")
            }
        }
        guard !keys.isEmpty else {
            throw KeyError(
                .notAKeySet,
                "no decryption key in the document"
                    + (rejected.first.map { ": \($0)" } ?? ""))
        }
    }

    /// The keys to try for a token: those whose `kid` is the token's, else (no key has it, or the token has no
    /// `kid`) the keys without a `kid`, or every key when the token names none; each must allow `alg`.
    func candidates(kid: String?, alg: KeyManagementAlgorithm) -> [DecryptionKey] {
        let usable = keys.filter { $0.algorithms.contains(alg) }
        guard let kid else { return usable }
        let named = usable.filter { $0.kid == kid }
        return named.isEmpty ? usable.filter { $0.kid == nil } : named
    }
}
