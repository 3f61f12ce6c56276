import Foundation
import JWTKernel

/// A fresh RSA-2048 key made by the `openssl` command in a temporary directory, and RS256
/// tokens signed with it by `openssl dgst`: provider presets accept RS256 only, and the
/// kernel must not sign its own test tokens.
public final class OpenSSLRSAKey: @unchecked Sendable {
    /// The temporary directory holding the key (key.pem) and what the tests write beside it.
    public let directory: URL
    public let kid: String
    private var privateKey: URL { directory.appendingPathComponent("key.pem") }

    public init(kid: String) throws {
        self.kid = kid
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("jwtk-rsa-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        _ = try Self.openssl([
            "genpkey", "-algorithm", "RSA", "-pkeyopt", "rsa_keygen_bits:2048", "-out", privateKey.path,
        ])
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    /// The public key as a PEM `PUBLIC KEY` block.
    public func publicPEM() throws -> String {
        String(decoding: try Self.openssl(["pkey", "-in", privateKey.path, "-pubout"]), as: UTF8.self)
    }

    /// The public key as a JWKS with this key's kid.
    public func jwks() throws -> String {
        let text = String(
            decoding: try Self.openssl(["rsa", "-in", privateKey.path, "-modulus", "-noout"]), as: UTF8.self)
        let hex = text.trimmingCharacters(in: .whitespacesAndNewlines).replacingOccurrences(of: "Modulus=", with: "")
        var modulus: [UInt8] = []
        var index = hex.startIndex
        while index < hex.endIndex {
            let next = hex.index(index, offsetBy: 2)
            modulus.append(UInt8(hex[index..<next], radix: 16)!)
            index = next
        }
        return
            #"{"keys":[{"kty":"RSA","kid":"\#(kid)","alg":"RS256","use":"sig","n":"\#(Base64URL.encode(modulus))","e":"AQAB"}]}"#
    }

    /// An RS256 token over `claims` (JSON text) naming this key's kid.
    public func token(claims: String) throws -> String {
        let input =
            Base64URL.encode(Array(#"{"alg":"RS256","kid":"\#(kid)"}"#.utf8)) + "."
            + Base64URL.encode(Array(claims.utf8))
        let signature = try Self.openssl(["dgst", "-sha256", "-sign", privateKey.path], input: Data(input.utf8))
        return input + "." + Base64URL.encode(Array(signature))
    }

    /// Runs `openssl args`; its stdout, or an error with its stderr.
    static func openssl(_ args: [String], input: Data? = nil) throws -> Data {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + args
        let out = Pipe(), err = Pipe(), stdin = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = stdin
        try process.run()
        if let input { stdin.fileHandleForWriting.write(input) }
        try stdin.fileHandleForWriting.close()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        let message = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw NSError(
                domain: "openssl", code: Int(process.terminationStatus),
                userInfo: [NSLocalizedDescriptionKey: String(decoding: message, as: UTF8.self)])
        }
        return data
    }
}
