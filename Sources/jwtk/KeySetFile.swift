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
            return try JWKSet(json: data)
        }
    }
}
