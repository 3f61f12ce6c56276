// Typed claims: the verified token's claims decoded into the caller's own `Decodable` type, from the
// `JSONValue` tree the owning result already holds (`VerifiedJWT.claims`), by `JSONValueDecoder`. Every verifier's
// `verify(_:as:at:)` is in `TokenVerifier`.

extension VerifiedJWT {
    /// The claims decoded as `T` (see `JSONValueDecoder` for numbers and errors).
    /// Throws `DecodingError` when they do not fit `T`.
    public func decode<T: Decodable>(_ type: T.Type = T.self) throws -> T {
        try JSONValueDecoder().decode(type, from: claims)
    }
}
