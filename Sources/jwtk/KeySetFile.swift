import Foundation
@_spi(Internals) import JWTKernel

/// The one reader of key files, for `verify --jwks FILE` and `jwtk jwks FILE`.
/// Each file is one key set, loaded as the kernel loads a published one: keys it
/// refuses (including HMAC secrets in a file that also holds public keys) are
/// reported on stderr and skipped, and a file that yields no usable key at all
/// is a configuration error.
enum KeySetFile {
    /// What a key file holds, told apart once so both commands read the same formats.
    enum Document {
        /// A JWKS, a single JWK or a `{kid: PEM}` map.
        case json([UInt8])
        /// One PEM public key or certificate, possibly after other text (RFC 7468 section 2).
        case pem(String)
    }

    /// Every file's keys in one set. An operator who trusts both secrets and
    /// public keys gives them in separate files; the merged set keeps each key
    /// bound to its own algorithm family, so a secret never verifies an RS256
    /// token and a public key never keys an HMAC.
    static func loadAll(_ paths: [String]) throws -> JWKSet {
        var keys: [VerificationKey] = []
        var rejected: [KeyError] = []
        for path in paths {
            let set = try load(path)
            keys += set.keys
            rejected += set.rejected
        }
        let merged = JWKSet(keys: keys, rejected: rejected)
        // Keys refused only once the files meet (a kid used in two files) were not reported by `load`.
        for refused in merged.rejected.dropFirst(rejected.count) {
            warn("skipped \(refused) (across the --jwks files)")
        }
        guard !merged.keys.isEmpty else { throw ConfigurationError("no usable key across the --jwks files") }
        return merged
    }

    static func load(_ path: String) throws -> JWKSet {
        let set: JWKSet
        switch parse(try read(path)) {
        case .success(let parsed): set = parsed
        case .failure(let error): throw ConfigurationError("\(path): invalid key set: \(error)")
        }
        for rejected in set.rejected {
            warn("\(path): skipped \(rejected)")
        }
        if set.rejected.contains(where: { $0.code == .mixedKeyTypes }) {
            warn("\(path): give HMAC secrets in a --jwks file of their own to trust them next to public keys")
        }
        guard !set.keys.isEmpty else {
            let reasons = set.rejected.map(\.description).joined(separator: "; ")
            throw ConfigurationError("\(path): no usable key\(reasons.isEmpty ? "" : " (\(reasons))")")
        }
        return set
    }

    static func read(_ path: String) throws -> Document {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the key set file")
        }
        return document(Array(data))
    }

    /// JSON when the first character after a UTF-8 byte order mark and whitespace opens a JSON value;
    /// otherwise PEM when a `-----BEGIN ` line is anywhere (text may precede it); otherwise JSON, whose
    /// parser then says what is wrong. Editors on Windows save both kinds with a byte order mark.
    static func document(_ bytes: [UInt8]) -> Document {
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let first = body.first { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        if first != UInt8(ascii: "{"), first != UInt8(ascii: "["), PEMText.isPEM(body) {
            return .pem(String(decoding: body, as: UTF8.self))
        }
        return .json(Array(body))
    }

    static func parse(_ document: Document) -> Result<JWKSet, KeyError> {
        Result { () throws(KeyError) -> JWKSet in
            switch document {
            case .pem(let text): return JWKSet(keys: [try VerificationKey(pem: text)])
            case .json(let bytes): return try JWKSet(json: bytes)
            }
        }
    }

    private static func warn(_ message: String) {
        CLIError.warn(message)
    }
}
