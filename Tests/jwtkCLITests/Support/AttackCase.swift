/// One case of the RFC 8725 attack suite (`attacks/tokens.json`), as far as
/// the CLI tests need it.
struct AttackCase: Decodable {
    var name: String
    var token: String
    /// "public" or "hmac": which of the suite's key sets verifies it.
    var jwks: String
    var expect_valid: Bool
    var expect_error: String?
    /// Ambiguous cases: any of these codes is a correct rejection.
    var accept_errors: [String]?
    /// Present when the case needs more than the suite's default policy.
    var policy: Policy?

    /// Only whether there is one matters here: such cases are left to the library tests.
    struct Policy: Decodable {}

    var acceptableCodes: Set<String> {
        Set(accept_errors ?? []).union(expect_error.map { [$0] } ?? [])
    }
}
