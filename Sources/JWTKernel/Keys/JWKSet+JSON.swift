/// Loading a key set from the JSON forms providers publish.
extension JWKSet {
    /// Accepts a JWKS (`{"keys":[...]}`), a single JWK, or the `{kid: PEM}`
    /// certificate map that Google and Firebase publish.
    ///
    /// A published key set that mixes HMAC secrets with public keys is a
    /// configuration mistake (a secret someone published) and the classic
    /// setting for algorithm confusion, so by default the secrets are refused
    /// and the public keys kept. `allowMixedKeyTypes` keeps both, for a
    /// locally configured file: every key stays bound to its algorithm family.
    ///
    /// An HMAC secret shorter than its hash output (RFC 7518 §3.2) is refused unless
    /// `allowShortHMACSecrets` (NGINX Plus and kjdev/nginx-auth-jwt load them); then it loads and
    /// `warnings` names it and the rule.
    public init(
        json: some Collection<UInt8>, allowMixedKeyTypes: Bool = false, allowShortHMACSecrets: Bool = false
    ) throws(KeyError) {
        let document: JSONValue
        do { document = try JSONValue.parse(json) } catch {
            throw KeyError(.notAKeySet, "not valid JSON: \(error.message(locatedIn: json))")
        }
        guard let members = document.objectValue else { throw KeyError(.notAKeySet, "a key set must be a JSON object") }

        var loaded: [VerificationKey] = []
        var rejected: [KeyError] = []
        // Whether the document publishes anything but a secret, judged on what it says (`kty`), not on which keys
        // loaded: a refused public key (`use: enc`, 1024 bits) next to a secret still makes the secret a published one.
        var publishesPublicKeys = false
        if let list = document["keys"] {
            guard let entries = list.arrayValue else { throw KeyError(.notAKeySet, "\"keys\" is not an array") }
            publishesPublicKeys = entries.contains { $0["kty"]?.stringValue != "oct" }
            for (i, entry) in entries.enumerated() {
                do {
                    loaded.append(try VerificationKey(jwk: entry, allowShortHMACSecrets: allowShortHMACSecrets))
                } catch {
                    rejected.append(error.naming(error.kid ?? "#\(i)"))
                }
            }
        } else if document["kty"] != nil {
            loaded.append(try VerificationKey(jwk: document, allowShortHMACSecrets: allowShortHMACSecrets))
        } else if !members.isEmpty,
            // A value may start with whitespace, a byte order mark or other text before its PEM boundary.
            members.allSatisfy({ $0.value.stringValue.map { PEMText.isPEM($0.utf8) } == true })
        {
            publishesPublicKeys = true
            for member in members {
                do { loaded.append(try VerificationKey(pem: member.value.stringValue!, kid: member.name)) } catch {
                    rejected.append(error)
                }
            }
        } else {
            throw KeyError(.notAKeySet, "not a JWKS (no \"keys\"), a JWK (no \"kty\") or a {kid: PEM} map")
        }
        if !allowMixedKeyTypes, publishesPublicKeys || loaded.contains(where: { !$0.isSecret }) {
            for key in loaded where key.isSecret {
                rejected.append(
                    KeyError(.mixedKeyTypes, kid: key.kid, "HMAC secret in a key set that holds public keys"))
            }
            loaded.removeAll { $0.isSecret }
        }
        self.init(keys: loaded, rejected: rejected)
    }
}
