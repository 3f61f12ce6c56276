import JWTKernel

/// HMAC key sets for the loopback server, each key's secret derived from its kid: a test can make a token
/// for any kid whether or not its key is served (a rotation is the next key set with other kids).
public enum HMACTestKeys {
    public static func secret(_ kid: String) -> String {
        String((kid + String(repeating: "#", count: 40)).prefix(40))
    }

    /// A JWKS of HS256 keys for `kids`.
    public static func jwks(_ kids: [String]) -> String {
        let keys = kids.map { kid in
            #"{"kty":"oct","kid":"\#(kid)","alg":"HS256","k":"\#(Base64URL.encode(Array(secret(kid).utf8)))"}"#
        }
        return #"{"keys":[\#(keys.joined(separator: ","))]}"#
    }

    /// A token of `iss` for audience `app`, valid until 2096, signed with `kid`'s key by the server's Python hmac.
    public static func token(on server: LoopbackServer, kid: String, iss: String) -> String {
        server.hs256(
            secret: secret(kid), kid: kid, claims: #"{"iss":"\#(iss)","sub":"u","aud":"app","exp":4000000000}"#)
    }
}
