import Glibc
@_spi(Internals) import JWTKernel

/// The one-line JSON result the `verify` contract promises per token.
enum ResultLine {
    /// Verifies `token`, appends its result line to `output`, returns whether it was valid.
    static func write(
        verifier: any TokenVerifier, token: UnsafeRawBufferPointer, decryption: (TokenType, JWEDecryptor)? = nil,
        to output: OutputWriter
    ) -> Bool {
        do {
            var line: [UInt8] = []
            switch decryption {
            case nil:
                line = try verifier.verify(token) { signedLine($0) }
            case (.nested, let decryptor)?:
                var outcome = CacheOutcome.notUsed
                try verifier.verifyNestedLending(token, decryptor: decryptor, at: nil, cacheOutcome: &outcome) {
                    line = signedLine($0)
                }
            case (_, let decryptor)?:
                // Encrypted-only: the JWE's alg and enc, the decryption key's kid, the decrypted claims.
                try verifier.verifyEncryptedLending(token, decryptor: decryptor, at: nil) { t in
                    var text =
                        "{\"valid\":true,\"alg\":\"\(t.keyManagement.rawValue)\",\"enc\":\"\(t.contentEncryption.rawValue)\",\"kid\":"
                    if let kid = t.key.kid { JSONValue.writeString(kid, to: &text) } else { text += "null" }
                    text += ",\"claims\":"
                    line = Array(text.utf8) + JSONText.compact(t.claimsJSON) + Array("}".utf8)
                }
            }
            output.write(line)
            return true
        } catch {
            output.write(failure(error))
            return false
        }
    }

    private static func signedLine(_ verified: VerifiedToken) -> [UInt8] {
        var text = "{\"valid\":true,\"alg\":\"\(verified.algorithm.rawValue)\",\"kid\":"
        if let kid = verified.kid { JSONValue.writeString(kid, to: &text) } else { text += "null" }
        text += ",\"claims\":"
        return Array(text.utf8) + JSONText.compact(verified.claimsJSON) + Array("}".utf8)
    }

    static func failure(_ error: JWTError) -> [UInt8] {
        var text = "{\"valid\":false,\"error\":\"\(error.code.name)\",\"message\":"
        JSONValue.writeString(error.message, to: &text)
        text += "}"
        return Array(text.utf8)
    }
}

/// Buffers result lines and writes them in large blocks: a million lines must
/// not mean a million system calls.
final class OutputWriter {
    private var buffer: [UInt8] = []

    init() { buffer.reserveCapacity(1 << 16) }

    func write(_ line: [UInt8]) {
        buffer += line
        buffer.append(UInt8(ascii: "\n"))
        if buffer.count >= 1 << 16 { flush() }
    }

    func flush() {
        buffer.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = Glibc.write(1, raw.baseAddress! + offset, raw.count - offset)
                if n <= 0 { break }
                offset += n
            }
        }
        buffer.removeAll(keepingCapacity: true)
    }
}
