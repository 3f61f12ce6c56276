internal import COpenSSL

extension OpenSSLPublicKey {
    /// The public key's members that RFC 7638 hashes for its thumbprint, in
    /// lexicographic order, as JWK text values: for keys that came without a JWK
    /// (PEM, a certificate). nil for a shape not exported here (a compressed EC point).
    func thumbprintMembers(_ type: KeyType) -> [(name: String, value: String)]? {
        switch type {
        case .rsa:
            guard let n = bignum(jwtk_ossl_pkey_param_rsa_n()), let e = bignum(jwtk_ossl_pkey_param_rsa_e()) else {
                return nil
            }
            return [("e", Base64URL.encode(e)), ("kty", "RSA"), ("n", Base64URL.encode(n))]
        case .ec(let curve):
            // The encoded point: 0x04 || x || y, each coordinate at its full length (RFC 7518 §6.2.1.2).
            let l = curve.coordinateLength
            guard let point = octets(jwtk_ossl_pkey_param_pub_key(), capacity: 1 + 2 * l), point.count == 1 + 2 * l,
                point[0] == 4
            else { return nil }
            return [
                ("crv", curve.rawValue), ("kty", "EC"), ("x", Base64URL.encode(Array(point[1...l]))),
                ("y", Base64URL.encode(Array(point[(l + 1)...]))),
            ]
        case .okp(let curve):
            var raw = [UInt8](repeating: 0, count: curve.publicKeyLength)
            var length = raw.count
            guard EVP_PKEY_get_raw_public_key(pkey, &raw, &length) == 1 else { return nil }
            return [("crv", curve.rawValue), ("kty", "OKP"), ("x", Base64URL.encode(Array(raw.prefix(length))))]
        case .oct:
            return nil
        }
    }

    /// A big-number parameter as unsigned big-endian bytes without leading zeros.
    private func bignum(_ name: UnsafePointer<CChar>) -> [UInt8]? {
        var bn: OpaquePointer?
        guard EVP_PKEY_get_bn_param(pkey, name, &bn) == 1, let bn else { return nil }
        defer { BN_free(bn) }
        var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
        let n = Int(BN_bn2bin(bn, &bytes))
        return Array(bytes.prefix(n))
    }

    private func octets(_ name: UnsafePointer<CChar>, capacity: Int) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: capacity)
        var length = 0
        guard EVP_PKEY_get_octet_string_param(pkey, name, &bytes, capacity, &length) == 1 else { return nil }
        return Array(bytes.prefix(length))
    }
}
