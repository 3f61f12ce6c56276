/// The five segments of a compact JWE (RFC 7516 §7.1), located in place and decoded strictly: exactly four
/// dots, every segment canonical base64url (`Base64URL`, the JWS path's decoder), a non-empty header, IV and
/// tag. The size limit is the caller's, checked before this runs.
struct CompactJWE {
    /// The protected header segment as it is in the token: its ASCII is the AAD (RFC 7516 §5.2 step 14).
    let encodedHeader: [UInt8]
    let header: [UInt8]
    let encryptedKey: [UInt8]
    let iv: [UInt8]
    let ciphertext: [UInt8]
    let tag: [UInt8]

    init(_ token: UnsafeRawBufferPointer) throws(JWTError) {
        var parts: [UnsafeRawBufferPointer] = []
        parts.reserveCapacity(5)
        var start = 0
        for (i, byte) in token.enumerated() where byte == UInt8(ascii: ".") {
            guard parts.count < 4 else { throw JWTError(.malformed, "JWE does not have exactly five segments") }
            parts.append(UnsafeRawBufferPointer(rebasing: token[start..<i]))
            start = i + 1
        }
        guard parts.count == 4 else { throw JWTError(.malformed, "JWE does not have exactly five segments") }
        parts.append(UnsafeRawBufferPointer(rebasing: token[start...]))
        guard !parts[0].isEmpty else { throw JWTError(.malformed, "header segment is empty") }
        guard !parts[2].isEmpty, !parts[4].isEmpty else { throw JWTError(.malformed, "JWE IV or tag is empty") }
        var decoded: [[UInt8]] = []
        for part in parts {
            guard let bytes = Base64URL.decode(Array(part)) else {
                throw JWTError(.malformed, "segment is not canonical base64url")
            }
            decoded.append(bytes)
        }
        encodedHeader = Array(parts[0])
        header = decoded[0]
        encryptedKey = decoded[1]
        iv = decoded[2]
        ciphertext = decoded[3]
        tag = decoded[4]
    }

    /// True when `token` has the shape of a compact JWE (four dots), without decoding anything: how a
    /// nested token's plaintext is told to be a JWE inside a JWE.
    static func hasFiveSegments(_ token: some Collection<UInt8>) -> Bool {
        token.lazy.filter { $0 == UInt8(ascii: ".") }.count == 4
    }
}
