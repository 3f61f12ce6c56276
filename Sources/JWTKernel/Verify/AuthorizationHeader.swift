/// Reads the token of an `Authorization: Bearer <token>` header (RFC 6750 section 2.1), for the
/// framework integrations: one reading for Hummingbird and Vapor alike. (Not called `BearerAuthorization`:
/// Vapor has a type of that name, and its users import both modules.)
public enum AuthorizationHeader {
    /// The token, or nil when the header is another scheme or has no token. The scheme is matched
    /// case-insensitively (RFC 9110 section 11.1: `bearer` and `BEARER` are Bearer too, which
    /// hummingbird-auth's `headers.bearer` does not accept), spaces around the token are skipped; the
    /// token itself is not checked here (the verifier refuses anything that is not a compact JWS).
    public static func bearerToken(in header: some StringProtocol) -> Substring? {
        let text = Substring(header)
        let scheme = "bearer"
        guard text.utf8.count > scheme.utf8.count else { return nil }
        var index = text.startIndex
        for expected in scheme.utf8 {
            guard let byte = text.utf8[index...].first, byte | 0x20 == expected else { return nil }
            index = text.utf8.index(after: index)
        }
        let rest = text[index...]
        guard let first = rest.first, first == " " || first == "\t" else { return nil }
        let token = rest.drop(while: { $0 == " " || $0 == "\t" })
        let trimmed = token.reversed().drop(while: { $0 == " " || $0 == "\t" }).count
        let end = token.index(token.startIndex, offsetBy: trimmed)
        return trimmed == 0 ? nil : token[token.startIndex..<end]
    }
}
