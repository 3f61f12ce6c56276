import Foundation
import JWTKernel

/// Loads one `--jwks FILE`. Keys the kernel refuses are reported on stderr
/// and skipped; a file that yields no usable key at all is a configuration error.
enum KeySetFile {
    static func load(_ path: String) throws -> JWKSet {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ConfigurationError("\(path): cannot read the key set file")
        }
        let set: JWKSet
        switch parse(data) {
        case .success(let parsed): set = parsed
        case .failure(let error): throw ConfigurationError("\(path): invalid key set: \(error)")
        }
        let secrets = set.keys.filter { if case .oct = $0.type { true } else { false } }.count
        if secrets > 0, secrets < set.keys.count {
            FileHandle.standardError.write(Data("jwtk: warning: \(path): mixes HMAC secrets with public keys\n".utf8))
        }
        for rejected in set.rejected {
            FileHandle.standardError.write(Data("jwtk: warning: \(path): skipped \(rejected)\n".utf8))
        }
        guard !set.keys.isEmpty else {
            let reasons = set.rejected.map(\.description).joined(separator: "; ")
            throw ConfigurationError("\(path): no usable key\(reasons.isEmpty ? "" : " (\(reasons))")")
        }
        return set
    }

    private static func parse(_ data: Data) -> Result<JWKSet, KeyError> {
        Result { () throws(KeyError) -> JWKSet in
            if data.starts(with: Array("-----BEGIN".utf8)) {
                return JWKSet(keys: [try VerificationKey(pem: String(decoding: data, as: UTF8.self))])
            }
            // Operator-provided files may hold HMAC secrets next to public keys
            // (each key stays bound to its algorithm family); a warning says so.
            return try JWKSet(json: data, allowMixedKeyTypes: true)
        }
    }
}
