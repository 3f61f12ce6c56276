/// The value of an RFC 6750 `WWW-Authenticate` header, built in one place so that every front end quotes
/// the realm the same way.
public enum BearerChallenge {
    /// `Bearer realm="api"` (no token was sent: RFC 6750 section 3.1 says no `error` then),
    /// `Bearer realm="api", error="invalid_token"`, or with `insufficient_scope` the `scope` the resource
    /// needs. Values are quoted-strings (RFC 9110 section 5.6.4): `"` and `\` escaped, control characters
    /// dropped, so a configured realm cannot split the header.
    public static func header(realm: String, error: String? = nil, scope: String? = nil) -> String {
        var value = "Bearer realm=\"" + quoted(realm) + "\""
        if let error { value += ", error=\"" + quoted(error) + "\"" }
        if let scope { value += ", scope=\"" + quoted(scope) + "\"" }
        return value
    }

    /// RFC 6750 section 3.1's error for a token that is valid but does not grant what the resource needs
    /// (answered 403): for an application's own checks after verification (roles, scopes).
    public static let insufficientScope = "insufficient_scope"

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
