import Foundation
import JWTKernel
@_exported import JWTKernelTestSupport

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

    public static func secret(_ kid: String) -> String { HMACTestKeys.secret(kid) }

    /// A JWKS of HMAC keys for `kids`.
    public static func jwks(_ kids: [String]) -> String { HMACTestKeys.jwks(kids) }

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
