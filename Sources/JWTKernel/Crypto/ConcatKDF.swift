internal import COpenSSL

/// The Concat KDF of NIST SP 800-56A §5.8.1 with SHA-256, as JWE's `ECDH-ES` uses it (RFC 7518 §4.6.2):
/// rounds of SHA-256(counter || Z || OtherInfo), OtherInfo = AlgorithmID || PartyUInfo || PartyVInfo ||
/// SuppPubInfo, each of the first three a 32-bit big-endian length and its bytes, SuppPubInfo the key length
/// in bits (32-bit big-endian), SuppPrivInfo empty.
enum ConcatKDF {
    static func derive(
        z: SecretBytes, keyLength: Int, algorithmID: [UInt8], partyU: [UInt8], partyV: [UInt8]
    ) -> SecretBytes? {
        guard let md = Digests.sha256, keyLength > 0, keyLength <= 64 else { return nil }
        var otherInfo: [UInt8] = []
        for field in [algorithmID, partyU, partyV] {
            otherInfo += bigEndian32(UInt32(field.count)) + field
        }
        otherInfo += bigEndian32(UInt32(keyLength * 8))
        var output = [UInt8]()
        defer { OPENSSL_cleanse(&output, output.count) }
        var counter: UInt32 = 1
        while output.count < keyLength {
            var round = [UInt8](repeating: 0, count: 32)
            var input = bigEndian32(counter)
            z.withBytes { input += $0 }
            input += otherInfo
            var length: UInt32 = 0
            let ok = EVP_Digest(input, input.count, &round, &length, md, nil) == 1
            OPENSSL_cleanse(&input, input.count)
            guard ok, length == 32 else { return nil }
            output += round
            OPENSSL_cleanse(&round, round.count)
            counter += 1
        }
        return SecretBytes(output[0..<keyLength])
    }

    private static func bigEndian32(_ v: UInt32) -> [UInt8] {
        [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
