public import HTTPTypes
public import JWTKernel

/// A claim the agent answers as a response header, for the gateway to copy into the upstream request
/// (Caddy `copy_headers`, nginx `auth_request_set`, Traefik `authResponseHeaders`).
///
/// Values, as the NGINX Plus `$jwt_claim_` variables and jwt-kernel's module render them: a string as is,
/// a number as its JSON text, `true`/`false`, an array of scalars joined with commas, an object or nested
/// array as JSON text. A missing or null claim, or a value an HTTP header cannot carry (a control
/// character, more than `maxValueBytes`), has no value: the agent answers the header empty. The gateway must
/// strip client-sent copies of these names (the agent cannot: it answers the gateway, not the upstream), as
/// the README's examples do.
public struct ClaimHeader: Sendable, Equatable {
    public let header: HTTPField.Name
    /// An RFC 6901 JSON Pointer into the claims (`/sub`, `/https:~1~1example.com~1roles`).
    public let pointer: String

    /// Longer values are not sent: nginx's default `large_client_header_buffers` is 8 KiB for a whole line.
    public static let maxValueBytes = 4096

    /// `claim`: a top-level claim name (`sub`, `email`), or a JSON Pointer when it starts with "/".
    public init?(header: String, claim: String) {
        guard let name = HTTPField.Name(header), !claim.isEmpty else { return nil }
        self.header = name
        if claim.hasPrefix("/") {
            self.pointer = claim
        } else {
            self.pointer = "/" + claim.replacingTildesAndSlashes()
        }
    }

    /// `HEADER=CLAIM` (the command line's `--claim-header X-Jwt-Sub=sub`).
    public init?(parsing text: String) {
        guard let eq = text.firstIndex(of: "=") else { return nil }
        self.init(header: String(text[..<eq]), claim: String(text[text.index(after: eq)...]))
    }

    /// The header's value for `token`, nil for none (the agent then answers it empty).
    public func value(in token: VerifiedJWT) -> String? {
        guard let claim = token.claim(at: pointer) else { return nil }
        let text: String
        switch claim {
        case .null: return nil
        case .string(let s): text = s
        case .number(let n): text = n
        case .bool(let b): text = b ? "true" : "false"
        case .object: text = claim.serialized()
        case .array(let elements):
            if elements.allSatisfy({ if case .array = $0 { false } else if case .object = $0 { false } else { true } })
            {
                text = elements.compactMap { element -> String? in
                    switch element {
                    case .string(let s): s
                    case .number(let n): n
                    case .bool(let b): b ? "true" : "false"
                    default: nil
                    }
                }.joined(separator: ",")
            } else {
                text = claim.serialized()
            }
        }
        guard text.utf8.count <= Self.maxValueBytes,
            !text.utf8.contains(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F })
        else { return nil }
        return text
    }
}

extension String {
    /// A member name as a JSON Pointer token (RFC 6901 section 3: "~" as "~0", "/" as "~1").
    fileprivate func replacingTildesAndSlashes() -> String {
        var out = ""
        for c in self {
            switch c {
            case "~": out += "~0"
            case "/": out += "~1"
            default: out.append(c)
            }
        }
        return out
    }
}
