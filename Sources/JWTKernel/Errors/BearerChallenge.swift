/// The value of an RFC 6750 `WWW-Authenticate` header, built in one place so that every front end quotes
/// the realm the same way: the Swift integrations and the forward-auth agent call `header`, the nginx module,
/// the Lua handler and other C hosts `jwtk_challenge`, which writes the same bytes (`write`).
public enum BearerChallenge {
    /// `Bearer realm="api"` (no token was sent: RFC 6750 section 3.1 says no `error` then),
    /// `Bearer realm="api", error="invalid_token"`, or with `insufficient_scope` the `scope` the resource
    /// needs. Values are quoted-strings (RFC 9110 section 5.6.4): `"` and `\` escaped, control characters
    /// dropped, so a configured realm cannot split the header.
    public static func header(realm: String, error: String? = nil, scope: String? = nil) -> String {
        var realm = realm
        var error = error
        var scope = scope
        return realm.withUTF8 { r in
            error.withUTF8 { e in
                scope.withUTF8 { s in
                    let parts = Parts(realm: UnsafeRawBufferPointer(r), error: e, scope: s)
                    return String(unsafeUninitializedCapacity: write(parts, into: nil)) {
                        write(parts, into: UnsafeMutableRawBufferPointer($0))
                    }
                }
            }
        }
    }

    /// RFC 6750 section 3.1's error for a token that is valid but does not grant what the resource needs
    /// (answered 403): for an application's own checks after verification (roles, scopes).
    public static let insufficientScope = "insufficient_scope"

    /// The challenge for a refused token: its code's `bearerError`, or nil when the code carries none
    /// (`keys_unavailable`, answered 503 without a challenge).
    public static func header(realm: String, refusing error: JWTError) -> String? {
        error.code.bearerError.map { header(realm: realm, error: $0) }
    }

    /// What a challenge is made of, as bytes (an absent `error` or `scope` is a nil base address).
    public struct Parts {
        public var realm: UnsafeRawBufferPointer
        public var error: UnsafeRawBufferPointer
        public var scope: UnsafeRawBufferPointer

        public init(realm: UnsafeRawBufferPointer, error: UnsafeRawBufferPointer, scope: UnsafeRawBufferPointer) {
            self.realm = realm
            self.error = error
            self.scope = scope
        }
    }

    /// Writes the challenge into `out` (as much as fits; nil: nothing, to measure) and returns its whole
    /// length; allocates nothing.
    public static func write(_ parts: Parts, into out: UnsafeMutableRawBufferPointer?) -> Int {
        var sink = Sink(out: out)
        sink.append("Bearer realm=\"")
        sink.appendQuoted(parts.realm)
        sink.append("\"")
        if parts.error.baseAddress != nil {
            sink.append(", error=\"")
            sink.appendQuoted(parts.error)
            sink.append("\"")
        }
        if parts.scope.baseAddress != nil {
            sink.append(", scope=\"")
            sink.appendQuoted(parts.scope)
            sink.append("\"")
        }
        return sink.count
    }

    private struct Sink {
        let out: UnsafeMutableRawBufferPointer?
        var count = 0

        mutating func append(_ byte: UInt8) {
            if let out, count < out.count { out[count] = byte }
            count += 1
        }

        mutating func append(_ text: StaticString) {
            for i in 0..<text.utf8CodeUnitCount { append(text.utf8Start[i]) }
        }

        /// A quoted-string's content: `"` and `\` escaped, control characters (and DEL) dropped.
        mutating func appendQuoted(_ bytes: UnsafeRawBufferPointer) {
            for byte in bytes where byte >= 0x20 && byte != 0x7F {
                if byte == 0x22 || byte == 0x5C { append(0x5C) }
                append(byte)
            }
        }
    }
}

extension Optional where Wrapped == String {
    /// The bytes of the string, or an empty view with a nil base address for nil (an absent part).
    fileprivate mutating func withUTF8<R>(_ body: (UnsafeRawBufferPointer) -> R) -> R {
        guard var text = self else { return body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return text.withUTF8 { bytes in
            // An empty present string still needs a non-nil base to count as present.
            bytes.count == 0
                ? withUnsafeBytes(of: 0) { body(UnsafeRawBufferPointer(start: $0.baseAddress, count: 0)) }
                : body(UnsafeRawBufferPointer(bytes))
        }
    }
}
