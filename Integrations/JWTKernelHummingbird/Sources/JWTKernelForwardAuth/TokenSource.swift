public import HTTPTypes
import JWTKernel

/// Where the forward-auth agent looks for the token in the request the gateway forwards, in the order
/// configured; the first source that has one is used (a bad token there is refused, never skipped for the
/// next source: an attacker must not be able to choose which token is checked).
public enum TokenSource: Sendable, Equatable, CustomStringConvertible {
    /// `Authorization: Bearer TOKEN` (RFC 6750 section 2.1).
    case authorization
    /// A header holding the bare token (`X-Id-Token: eyJ...`), or `Bearer TOKEN`.
    case header(HTTPField.Name)
    /// A cookie holding the bare token.
    case cookie(String)

    public var description: String {
        switch self {
        case .authorization: "authorization"
        case .header(let name): "header:\(name.canonicalName)"
        case .cookie(let name): "cookie:\(name)"
        }
    }

    /// `authorization`, `header:NAME` or `cookie:NAME` (the command line's `--token-from`).
    public init?(parsing text: String) {
        if text == "authorization" {
            self = .authorization
        } else if text.hasPrefix("header:"), let name = HTTPField.Name(String(text.dropFirst(7))) {
            self = .header(name)
        } else if text.hasPrefix("cookie:"), Self.isCookieName(text.dropFirst(7)) {
            self = .cookie(String(text.dropFirst(7)))
        } else {
            return nil
        }
    }

    /// The token this source finds in `headers`, nil when it has none. Several `Authorization` headers (or
    /// several headers of a `header:NAME` source) are read as one value, joined with commas (RFC 9110
    /// section 5.3, as `HTTPFields` gives them), which is no token: the request is refused, so a client
    /// cannot add a second token beside the one a gateway or another layer looked at. Of several cookies of
    /// the name, the first is read (RFC 6265 section 5.4 sends the most specific path first).
    public func token(in headers: HTTPFields) -> Substring? {
        switch self {
        case .authorization:
            guard let value = headers[.authorization] else { return nil }
            return AuthorizationHeader.bearerToken(in: value)
        case .header(let name):
            guard let value = headers[name] else { return nil }
            let token = AuthorizationHeader.bearerToken(in: value) ?? Substring(value)
            return token.isEmpty ? nil : token
        case .cookie(let name):
            for header in headers[values: .cookie] {
                for pair in header.split(separator: ";") {
                    let pair = pair.drop(while: { $0 == " " })
                    guard let eq = pair.firstIndex(of: "="), pair[..<eq] == name else { continue }
                    var value = pair[pair.index(after: eq)...]
                    // RFC 6265 allows the value in double quotes.
                    if value.count >= 2, value.first == "\"", value.last == "\"" {
                        value = value.dropFirst().dropLast()
                    }
                    return value.isEmpty ? nil : value
                }
            }
            return nil
        }
    }

    private static func isCookieName(_ name: Substring) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && !"()<>@,;:\\\"/[]?={}".utf8.contains($0) }
    }
}
