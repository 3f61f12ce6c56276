/// The value of an RFC 6750 `WWW-Authenticate` header, built in one place so that every front end quotes
/// the realm the same way.
public enum BearerChallenge {
    /// `Bearer realm="api"` (no token was sent: RFC 6750 section 3.1 says no `error` then) or
    /// `Bearer realm="api", error="invalid_token"`. The realm is a quoted-string (RFC 9110 section 5.6.4):
    /// `"` and `\` are escaped, control characters dropped, so a configured realm cannot split the header.
    public static func header(realm: String, error: String? = nil) -> String {
        var value = "Bearer realm=\"" + quoted(realm) + "\""
        if let error { value += ", error=\"" + quoted(error) + "\"" }
        return value
    }

    /// The challenge for a refused token: its code's `bearerError`, or nil when the code carries none
    /// (`keys_unavailable`, answered 503 without a challenge).
    public static func header(realm: String, refusing error: JWTError) -> String? {
        error.code.bearerError.map { header(realm: realm, error: $0) }
    }

    private static func quoted(_ text: String) -> String {
        var out = ""
        for scalar in text.unicodeScalars {
            if scalar.value < 0x20 || scalar.value == 0x7F { continue }
            if scalar == "\"" || scalar == "\\" { out.unicodeScalars.append("\\") }
            out.unicodeScalars.append(scalar)
        }
        return out
    }
}
