import JWTKernel

/// The members of an OpenID Provider Configuration document the refresher uses, checked. Read with
/// the kernel's strict JSON reader (a duplicate `issuer` is refused, so no reader can see another
/// value); every other member is not the refresher's business and is left unread.
struct DiscoveryDocument {
    let jwksURI: String

    init(_ bytes: [UInt8], expectedIssuer: String) throws(KeySourceError) {
        let root: JSONValue
        do { root = try JSONValue.parse(bytes) } catch {
            throw KeySourceError(
                .badDocument, "discovery document is not valid JSON: \(error.message(locatedIn: bytes))")
        }
        guard root.objectValue != nil else {
            throw KeySourceError(.badDocument, "discovery document is not a JSON object")
        }
        guard let issuer = root["issuer"]?.stringValue else {
            throw KeySourceError(.badDocument, "discovery document has no \"issuer\" string")
        }
        // Section 4.3: exactly equal, no normalization (a trailing slash, case or port makes another issuer).
        guard issuer == expectedIssuer else {
            throw KeySourceError(
                .badDocument,
                "discovery document names issuer \(Self.quoted(issuer)), not the configured \(Self.quoted(expectedIssuer)) (refused: OpenID Connect Discovery 1.0 section 4.3)"
            )
        }
        guard let member = root["jwks_uri"] else {
            throw KeySourceError(.badDocument, "discovery document has no \"jwks_uri\"")
        }
        guard let uri = member.stringValue else {
            throw KeySourceError(.badDocument, "discovery document's \"jwks_uri\" is not a string")
        }
        jwksURI = uri
    }

    /// A value from the network in a message: quoted, control characters replaced, at most 200 characters.
    static func quoted(_ text: String) -> String {
        let scalars = text.unicodeScalars
        var out = String.UnicodeScalarView()
        for scalar in scalars.prefix(200) {
            out.append(scalar.value < 0x20 || scalar.value == 0x7F ? "?" : scalar)
        }
        return "\"" + String(out) + (scalars.count > 200 ? "...\"" : "\"")
    }
}
