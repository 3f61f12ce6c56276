import Foundation
@_spi(Internals) import JWTKernel

/// The one reader of key files, for `verify --jwks FILE` and `jwtk jwks FILE`.
/// Each file is one key set, loaded as the kernel loads a published one: keys it
/// refuses (including HMAC secrets in a file that also holds public keys) are
/// reported on stderr and skipped, and key files that yield no usable key at all
/// are a configuration error. Several files are one set, by the C library's rule
/// (`jwtk_keystore_load_jwks_many`): their union must hold a usable key, and a file
/// that adds none is reported, not fatal.
enum KeySetFile {
    /// Every file's keys in one set. An operator who trusts both secrets and
    /// public keys gives them in separate files; the merged set keeps each key
    /// bound to its own algorithm family, so a secret never verifies an RS256
    /// token and a public key never keys an HMAC.
    /// `allowShortHMACSecrets` (`--allow-short-hmac-secrets`): HMAC secrets shorter than their hash
    /// output load, one warning each naming the key and the rule.
    static func loadAll(_ paths: [String], allowShortHMACSecrets: Bool = false) throws -> JWKSet {
        var keys: [VerificationKey] = []
        var rejected: [KeyError] = []
        for path in paths {
            // One file: its own error names it. Several: the union decides, a file adding nothing is named.
            let set =
                paths.count == 1
                ? try load(path, allowShortHMACSecrets: allowShortHMACSecrets)
                : try loadReporting(path, allowShortHMACSecrets: allowShortHMACSecrets)
            if set.keys.isEmpty { warn("\(path): no usable key in this file") }
            keys += set.keys
            rejected += set.rejected
        }
        let merged = JWKSet(keys: keys, rejected: rejected)
        // Keys refused only once the files meet (a kid used in two files) were not reported by `loadReporting`.
        for refused in merged.rejected.dropFirst(rejected.count) {
            warn("skipped \(refused) (across the --jwks files)")
        }
        guard !merged.keys.isEmpty else { throw ConfigurationError("no usable key across the --jwks files") }
        return merged
    }

    /// `--decryption-keys` files, each read whole (a JWKS, a JWK or a PEM private key) into one
    /// `DecryptionKeySet`; refused keys are reported as `--jwks` reports them.
    static func loadDecryptionKeys(_ paths: [String]) throws -> DecryptionKeySet {
        var keys: [DecryptionKey] = []
        var rejected: [KeyError] = []
        for path in paths {
            let set: DecryptionKeySet
            do { set = try DecryptionKeySet(try read(path)) } catch let error as KeyError {
                throw ConfigurationError("\(path): invalid decryption key set: \(error)")
            }
            for refused in set.rejected { warn("\(path): skipped \(refused)") }
            keys += set.keys
            rejected += set.rejected
        }
        return DecryptionKeySet(keys: keys, rejected: rejected)
    }

    static func load(_ path: String, allowShortHMACSecrets: Bool = false) throws -> JWKSet {
        let set = try loadReporting(path, allowShortHMACSecrets: allowShortHMACSecrets)
        guard !set.keys.isEmpty else {
            let reasons = set.rejected.map(\.description).joined(separator: "; ")
            throw ConfigurationError("\(path): no usable key\(reasons.isEmpty ? "" : " (\(reasons))")")
        }
        return set
    }

    /// `path`'s key set, its refused keys and warnings reported on stderr; empty when no key is usable.
    private static func loadReporting(_ path: String, allowShortHMACSecrets: Bool) throws -> JWKSet {
        let set: JWKSet
        switch parse(try read(path), allowShortHMACSecrets: allowShortHMACSecrets) {
        case .success(let parsed): set = parsed
        case .failure(let error): throw ConfigurationError("\(path): invalid key set: \(error)")
        }
        for rejected in set.rejected {
            warn("\(path): skipped \(rejected)")
        }
        for loaded in set.warnings {
            warn("\(path): loaded \(loaded)")
        }
        if set.rejected.contains(where: { $0.code == .mixedKeyTypes }) {
            warn("\(path): give HMAC secrets in a --jwks file of their own to trust them next to public keys")
        }
        return set
    }

    /// A file's bytes as the library tells key documents apart (`KeyDocument`: JSON or PEM), the
    /// same rule as the C library's loaders and so nginx's key files.
    static func read(_ path: String) throws -> KeyDocument {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the key set file")
        }
        return KeyDocument(data)
    }

    static func parse(_ document: KeyDocument, allowShortHMACSecrets: Bool = false) -> Result<JWKSet, KeyError> {
        Result { () throws(KeyError) -> JWKSet in try document.keySet(allowShortHMACSecrets: allowShortHMACSecrets) }
    }

    private static func warn(_ message: String) {
        CLIError.warn(message)
    }
}
