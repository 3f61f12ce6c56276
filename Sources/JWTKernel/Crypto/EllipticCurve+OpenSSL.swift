extension EllipticCurve {
    /// OpenSSL's name for the group (`EVP_PKEY_get_group_name`, `OSSL_PKEY_PARAM_GROUP_NAME`).
    var openSSLGroupName: String {
        switch self {
        case .p256: "prime256v1"
        case .p384: "secp384r1"
        case .p521: "secp521r1"
        case .secp256k1: "secp256k1"
        }
    }
}
