import Foundation

/// What a front end answered for a case, with what it can tell: a gateway no status name unless it shows one,
/// the claims only where it exports them.
public struct VerdictAnswer: Sendable {
    public var valid: Bool
    /// The status name; nil when the front end does not tell it (`.some(nil)`: it says "valid").
    public var error: String??
    public var http: Int
    public var bearerError: String?
    /// The `WWW-Authenticate` value as sent (HTTP front ends), checked for the realm on a 401 or 403.
    public var challenge: String??
    /// The verified token's claims (JSON text) when the front end hands them out.
    public var claimsJSON: [UInt8]?

    public init(
        valid: Bool, error: String??, http: Int, bearerError: String?, challenge: String?? = .none,
        claimsJSON: [UInt8]? = nil
    ) {
        self.valid = valid
        self.error = error
        self.http = http
        self.bearerError = bearerError
        self.challenge = challenge
        self.claimsJSON = claimsJSON
    }

    /// An HTTP front end's answer: the status, the `WWW-Authenticate` value (its `error=`), the status name if
    /// it shows one, the claims it handed the application when valid.
    public init(http status: Int, challenge: String?, statusName: String?, claimsJSON: [UInt8]?) {
        let bearerError = challenge.flatMap { header -> String? in
            guard let start = header.range(of: #"error=""#) else { return nil }
            return String(header[start.upperBound...].prefix { $0 != "\"" })
        }
        self.init(
            valid: status == 200, error: statusName.map { $0 == "ok" ? nil : $0 }, http: status,
            bearerError: bearerError, challenge: .some(challenge), claimsJSON: status == 200 ? claimsJSON : nil)
    }

    /// What this answer says otherwise than the corpus for `c` ([] when it agrees): verdicts.py's
    /// `mismatches`, plus the claims the case lists (each must be exported, as a header shows it) and, for an
    /// HTTP answer, a 401 or 403 carrying a challenge of `realm`.
    public func mismatches(
        _ c: VerdictCorpus.Case, frontEnd: String, groups: [String], realm: String = "api"
    ) -> [String] {
        let want = c.expected(frontEnd: frontEnd, groups: groups)
        var out: [String] = []
        if valid != want.valid { out.append("valid: \(valid), expected \(want.valid)") }
        if case .some(let name) = error, name != want.error {
            out.append("error: \(name ?? "nil"), expected \(want.error ?? "nil")")
        }
        if http != want.http { out.append("http: \(http), expected \(want.http)") }
        if bearerError != want.bearerError {
            out.append("bearer_error: \(bearerError ?? "nil"), expected \(want.bearerError ?? "nil")")
        }
        if case .some(let header) = challenge, http == 401 || http == 403,
            !(header ?? "").hasPrefix(#"Bearer realm="\#(realm)""#)
        {
            out.append("challenge: \(header ?? "none")")
        }
        if want.valid, valid, !c.claims.isEmpty {
            let claims = claimsJSON.flatMap { try? CorpusJSON.object(Data($0)) }
            if claims == nil { out.append("claims: none exported") }
            for (name, value) in c.claims.sorted(by: { $0.key < $1.key }) {
                let shown = claims.flatMap { Self.headerValue(Self.claim($0, name)) }
                if shown != value { out.append("claim \(name): \(shown ?? "nil"), expected \(value)") }
            }
        }
        return out
    }

    /// A claim by name, or by RFC 6901 pointer when it starts with "/".
    static func claim(_ claims: [String: Any], _ name: String) -> Any? {
        guard name.hasPrefix("/") else { return claims[name] }
        var node: Any? = claims
        for step in name.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            let key = step.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
            node = (node as? [String: Any])?[key]
        }
        return node
    }

    /// As a header shows a claim (`jwtk_claim_at` with `JWTK_AT_JOIN`, verdicts.py's `header_value`): a
    /// string as it is, an array of scalars joined by ",", anything else its compact JSON.
    static func headerValue(_ value: Any?) -> String? {
        switch value {
        case nil, is NSNull: return nil
        case let s as String: return s
        case let a as [Any] where a.allSatisfy({ !($0 is [Any]) && !($0 is [String: Any]) }):
            return a.map { $0 as? String ?? CorpusJSON.text($0) }.joined(separator: ",")
        case let v?: return CorpusJSON.text(v)
        }
    }
}
