import Glibc
@_spi(Internals) import JWTKernel

/// The one-line JSON result the `verify` contract promises per token.
enum ResultLine {
    /// Verifies `token`, appends its result line to `output`, returns whether it was valid.
    static func write(verifier: any TokenVerifier, token: UnsafeRawBufferPointer, to output: OutputWriter) -> Bool {
        do {
            let line = try verifier.verify(token) { verified -> [UInt8] in
                var text = "{\"valid\":true,\"alg\":\"\(verified.algorithm.rawValue)\",\"kid\":"
                if let kid = verified.kid { JSONValue.writeString(kid, to: &text) } else { text += "null" }
                text += ",\"claims\":"
                return Array(text.utf8) + JSONText.compact(verified.claimsJSON) + Array("}".utf8)
            }
            output.write(line)
            return true
        } catch {
            output.write(failure(error))
            return false
        }
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
