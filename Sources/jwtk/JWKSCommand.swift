import ArgumentParser
import Foundation
@_spi(Internals) import JWTKernel
import JWTKernelRemote

/// `jwtk jwks FILE|URL`: what the kernel makes of a key set, one JSON line per key.
struct JWKSCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "jwks",
        abstract:
            "List the keys of a key set (file or URL): kid, type, algorithms, size, RFC 7638 thumbprint, or why refused.",
        discussion: """
            One JSON object per key on stdout. Exit status: 0 at least one key is usable, 1 none is, 2 the
            document cannot be read or is not a key set. URLs are fetched like the refresher does (https, or
            http to loopback; 1 MiB; JSON only).
            """
    )

    @Argument(
        help: ArgumentHelp(
            "A key file as verify --jwks reads it (JWKS, JWK, {kid: PEM} map, PEM), or an http(s) URL.",
            valueName: "FILE|URL"))
    var location: String

    @Option(name: .long, help: ArgumentHelp("Seconds for the whole fetch of a URL.", valueName: "SECONDS"))
    var timeout: Double = 10

    func run() throws {
        let document: KeyDocument
        do {
            document = try load()
        } catch let error as ConfigurationError {
            CLIError.report(error)
            throw ExitCode(2)
        }
        let entries: [KeyListing.Entry]
        do {
            entries = try KeyListing.entries(of: document)
        } catch {
            CLIError.report(ConfigurationError("\(location): \(error)"))
            throw ExitCode(2)
        }
        var out = ""
        for entry in entries { out += entry.jsonLine + "\n" }
        FileHandle.standardOutput.write(Data(out.utf8))
        if !entries.contains(where: { $0.refusal == nil }) { throw ExitCode(1) }
    }

    /// A URL's body (JSON only, as the refresher takes it), or a file read as `verify --jwks` reads it.
    private func load() throws -> KeyDocument {
        if location.hasPrefix("https://") || location.hasPrefix("http://") {
            var config = HTTPKeySourceConfiguration()
            config.totalTimeout = timeout
            do {
                let source = try HTTPKeySource(url: location, configuration: config)
                guard case .document(let body, _) = try source.fetch(ifNoneMatch: nil) else {
                    throw ConfigurationError("\(location): unexpected 304")
                }
                return .json(body)
            } catch let error as KeySourceError {
                throw ConfigurationError("\(location): \(error)")
            }
        }
        return try KeySetFile.read(location)
    }
}

/// Each key of a document with the kernel's verdict on it: loaded alone, then
/// checked against the set-level rules (shared kids, secrets among public keys).
enum KeyListing {
    struct Entry {
        var kid: String?
        var type: KeyType?
        var algorithms: [String] = []
        var thumbprint: String?
        var refusal: String?

        var jsonLine: String {
            var text = "{\"kid\":"
            if let kid { JSONValue.writeString(kid, to: &text) } else { text += "null" }
            if let refusal {
                text += ",\"refused\":"
                JSONValue.writeString(refusal, to: &text)
                return text + "}"
            }
            switch type {
            case .rsa(let bits)?: text += ",\"kty\":\"RSA\",\"crv\":null,\"bits\":\(bits)"
            case .ec(let curve)?: text += ",\"kty\":\"EC\",\"crv\":\"\(curve.rawValue)\",\"bits\":\(Self.bits(curve))"
            case .okp(let curve)?:
                text += ",\"kty\":\"OKP\",\"crv\":\"\(curve.rawValue)\",\"bits\":\(curve == .ed25519 ? 256 : 456)"
            case .oct(let n)?: text += ",\"kty\":\"oct\",\"crv\":null,\"bits\":\(n * 8)"
            case nil: text += ",\"kty\":null"
            }
            text += ",\"alg\":[" + algorithms.map { "\"\($0)\"" }.joined(separator: ",") + "],\"thumbprint\":"
            if let thumbprint { JSONValue.writeString(thumbprint, to: &text) } else { text += "null" }
            return text + "}"
        }

        private static func bits(_ curve: EllipticCurve) -> Int {
            switch curve {
            case .p256, .secp256k1: 256
            case .p384: 384
            case .p521: 521
            }
        }
    }

    struct DocumentError: Error, CustomStringConvertible { let description: String }

    static func entries(of file: KeyDocument) throws -> [Entry] {
        let bytes: [UInt8]
        switch file {
        case .pem(let text): return [entry(pem: text, kid: nil)]
        case .json(let json): bytes = json
        }
        let document: JSONValue
        do { document = try JSONValue.parse(bytes) } catch {
            throw DocumentError(description: "not valid JSON: \(error.message(locatedIn: bytes))")
        }
        var entries: [Entry] = []
        if let list = document["keys"] {
            guard let keys = list.arrayValue else { throw DocumentError(description: "\"keys\" is not an array") }
            for (i, jwk) in keys.enumerated() { entries.append(entry(jwk: jwk, index: i)) }
        } else if document["kty"] != nil {
            entries.append(entry(jwk: document, index: 0))
        } else if let members = document.objectValue, !members.isEmpty,
            members.allSatisfy({ $0.value.stringValue.map { PEMText.isPEM($0.utf8) } == true })
        {
            for member in members { entries.append(entry(pem: member.value.stringValue ?? "", kid: member.name)) }
        } else {
            throw DocumentError(description: "not a JWKS (no \"keys\"), a JWK (no \"kty\") or a {kid: PEM} map")
        }
        // Set-level rules: what the verifier would actually use.
        if case .success(let set) = KeySetFile.parse(file) {
            for i in entries.indices where entries[i].refusal == nil {
                let kid = entries[i].kid
                if !set.keys.contains(where: { $0.kid == kid }),
                    let why = set.rejected.last(where: { $0.kid == kid })
                {
                    entries[i].refusal = why.reason
                }
            }
        }
        return entries
    }

    /// A `{kid: PEM}` map's value or a PEM file; the thumbprint is computed from the key itself.
    private static func entry(pem: String, kid: String?) -> Entry {
        do {
            let key = try VerificationKey(pem: pem, kid: kid)
            return Entry(
                kid: kid, type: key.type, algorithms: key.algorithms.algorithms.map(\.rawValue),
                thumbprint: JWKThumbprint.sha256(key))
        } catch {
            return Entry(kid: kid, refusal: error.reason)
        }
    }

    private static func entry(jwk: JSONValue, index: Int) -> Entry {
        let kid = jwk["kid"]?.stringValue
        do {
            let key = try VerificationKey(jwk: jwk)
            return Entry(
                kid: kid, type: key.type, algorithms: key.algorithms.algorithms.map(\.rawValue),
                // From the JWK as published; from the key itself when the JWK has only a certificate (x5c).
                thumbprint: JWKThumbprint.sha256(jwk) ?? JWKThumbprint.sha256(key))
        } catch {
            return Entry(kid: kid ?? error.kid, refusal: error.reason)
        }
    }
}
