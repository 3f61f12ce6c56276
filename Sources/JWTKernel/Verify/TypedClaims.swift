// Typed claims: the verified token's claims decoded into the caller's own `Decodable` type, from the
// `JSONValue` tree the owning result already holds (`VerifiedJWT.claims`), by `JSONValueDecoder`.

extension VerifiedJWT {
    /// The claims decoded as `T` (see `JSONValueDecoder` for numbers and errors).
    /// Throws `DecodingError` when they do not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: claims)
    }
}

extension JWTVerifier {
    /// Verifies `token` as `verify(_:)` does, then decodes its claims as `T`. Throws `JWTError` when
    /// the token is refused, `DecodingError` when its claims do not fit `T`.
    public func verify<T: Decodable>(_ token: String, as type: T.Type) throws -> T {
        try verify(token).decode(type)
    }
}

extension MultiIssuerVerifier {
    /// Verifies `token` as `verify(_:)` does, then decodes its claims as `T`. Throws `JWTError` when
    /// the token is refused, `DecodingError` when its claims do not fit `T`.
    public func verify<T: Decodable>(_ token: String, as type: T.Type) throws -> T {
        try verify(token).decode(type)
    }
}
