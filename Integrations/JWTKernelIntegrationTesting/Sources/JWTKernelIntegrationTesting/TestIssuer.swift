import Foundation
import JWTKernel

/// One HS256 issuer whose key set a test serves and rotates on a `LoopbackServer`: each kid's secret
/// derives from the kid, so a token for any kid can be made whether or not its key is served.
public struct TestIssuer: Sendable {
    public let issuer: String
    public let audience: String
    public let path: String

    public init(issuer: String = "https://issuer.test", audience: String = "app", path: String = "/jwks") {
        self.issuer = issuer
        self.audience = audience
        self.path = path
    }

    public static func secret(_ kid: String) -> String {
        String((kid + String(repeating: "#", count: 40)).prefix(40))
    }

    /// A JWKS of HMAC keys for `kids`.
    public static func jwks(_ kids: [String]) -> String {
        let keys = kids.map { kid in
            #"{"kty":"oct","kid":"\#(kid)","alg":"HS256","k":"\#(Base64URL.encode(Array(secret(kid).utf8)))"}"#
        }
        return #"{"keys":[\#(keys.joined(separator: ","))]}"#
    }

    /// Serves the key set of `kids` at `path` (a rotation is the next call with other kids).
    public func serveKeys(_ kids: [String], on server: LoopbackServer) {
        server.serve(path, json: Self.jwks(kids))
    }

    /// A token signed with `kid`'s key; `expiresIn` seconds from now (negative: expired), `audience` and
    /// `issuer` overriding this issuer's.
    public func token(
        on server: LoopbackServer, kid: String, subject: String = "user-1", expiresIn: Int = 600,
        audience: String? = nil, issuer: String? = nil
    ) -> String {
        let exp = Int(Date().timeIntervalSince1970) + expiresIn
        let claims =
            #"{"iss":"\#(issuer ?? self.issuer)","sub":"\#(subject)","aud":"\#(audience ?? self.audience)","exp":\#(exp)}"#
        return server.hs256(secret: Self.secret(kid), kid: kid, claims: claims)
    }
}

/// Polls `condition` every 20 ms for up to `seconds`: for what a key refresher's thread does in its own time.
public func eventually(_ seconds: Double, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let end = Date().addingTimeInterval(seconds)
    while Date() < end {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
