/// What every verifier answers, written once, as swift-nio's `ChannelInvoker` gives every invoker its
/// conveniences: a verifier (`JWTVerifier`, `MultiIssuerVerifier`) supplies the one lending verification,
/// `verifyLending(_:at:cacheOutcome:_:)`; the owning result, the zero-copy form, the outcome-only `check`
/// and the typed claims come from this extension, so each form means the same on every verifier and a
/// caller that takes either (the CLI) needs no protocol of its own.
public protocol TokenVerifier: AnyObject, Sendable {
    /// Tokens longer than this (bytes) are refused before anything is decoded.
    var maxTokenSize: Int { get }

    /// The one implementation behind every form below: calls `body` exactly once when the token verifies
    /// (the `VerifiedToken` is valid only inside it) and reports what the verified-token cache did. `now`:
    /// the time to judge the token at (Unix seconds), nil for the verifier's clock.
    func verifyLending(
        _ token: UnsafeRawBufferPointer, at now: Int64?, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError)

    /// A nested JWT (a JWS inside a JWE): decrypted with `decryptor`, then the inner JWS through
    /// `verifyLending` (docs/JWE.md).
    @_spi(Internals)
    func verifyNestedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> Void
    ) throws(JWTError)

    /// An encrypted-only JWT: decrypted with `decryptor`, then the claims step of the pipeline.
    @_spi(Internals)
    func verifyEncryptedLending(
        _ token: UnsafeRawBufferPointer, decryptor: JWEDecryptor, at now: Int64?, _ body: (DecryptedToken) -> Void
    ) throws(JWTError)
}

extension TokenVerifier {
    /// Verifies a JWT and returns an owning copy of the result; `now`: the time to judge it at (Unix
    /// seconds), nil for the verifier's clock.
    public func verify(_ token: String, at now: Int64? = nil) throws(JWTError) -> VerifiedJWT {
        try JWTVerifier.withBytes(token) { (bytes) throws(JWTError) in
            var result: VerifiedJWT? = nil
            try lend(bytes, at: now) { result = $0.copy() }
            return result!
        }
    }

    /// Verifies a JWT given as bytes and lends the result to `body` without copying or allocating; the
    /// `VerifiedToken` is valid only inside `body`.
    ///
    /// Inlinable so that it is specialised in the caller: the pipeline behind it is not generic, and an
    /// unspecialised generic call looked up generic metadata and copied values through witness tables on
    /// every token.
    @inlinable
    public func verify<R>(
        _ token: UnsafeRawBufferPointer, at now: Int64? = nil, _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        var result: R? = nil
        try lend(token, at: now) { result = body($0) }
        // lend calls its body exactly once whenever it returns without throwing.
        return result!
    }

    /// `verify(_:_:)` that also reports what the cache did, for a caller that counts it (the C library's
    /// jwtk_stats); the same steps by construction.
    @inlinable
    public func verify<R>(
        _ token: UnsafeRawBufferPointer, at now: Int64? = nil, cacheOutcome: inout CacheOutcome,
        _ body: (VerifiedToken) -> R
    ) throws(JWTError) -> R {
        var result: R? = nil
        try verifyLending(token, at: now, cacheOutcome: &cacheOutcome) { result = body($0) }
        return result!
    }

    /// Verifies a JWT and reports only the outcome (what a gateway's check needs); `now` as for
    /// `verify(_:at:)`.
    public func check(_ token: UnsafeRawBufferPointer, at now: Int64? = nil) -> JWTError? {
        do {
            try lend(token, at: now) { _ in }
            return nil
        } catch {
            return error
        }
    }

    /// String form of `check(_:at:)`.
    public func check(_ token: String, at now: Int64? = nil) -> JWTError? {
        var token = token
        return token.withUTF8 { check(UnsafeRawBufferPointer($0), at: now) }
    }

    /// Verifies `token` as `verify(_:at:)` does, then decodes its claims as `T`. Throws `JWTError` when the
    /// token is refused, `DecodingError` when its claims do not fit `T`.
    public func verify<T: Decodable>(_ token: String, as type: T.Type, at now: Int64? = nil) throws -> T {
        try verify(token, at: now).decode(type)
    }

    /// `verifyLending` without the cache's report. Inlinable, as the forms that call it, so a caller's
    /// concrete verifier calls its own `verifyLending` directly (no witness table, no generic metadata).
    @inlinable
    func lend(_ token: UnsafeRawBufferPointer, at now: Int64?, _ body: (VerifiedToken) -> Void) throws(JWTError) {
        var outcome = CacheOutcome.notUsed
        try verifyLending(token, at: now, cacheOutcome: &outcome, body)
    }
}

extension JWTVerifier: TokenVerifier {}
extension MultiIssuerVerifier: TokenVerifier {}
