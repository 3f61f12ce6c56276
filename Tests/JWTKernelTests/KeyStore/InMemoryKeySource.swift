import Foundation

@testable import JWTKernel

/// A key source tests control: it serves whatever document was set last, counts
/// fetches, and answers `notModified` when the caller's ETag is current.
final class InMemoryKeySource: KeySource, @unchecked Sendable {
    private let lock = NSLock()
    private var document: [UInt8]
    private var version = 0
    private var failure: KeySourceError?
    private(set) var fetchCount = 0
    var maxAge: Int64?

    init(_ document: [UInt8] = Array(#"{"keys":[]}"#.utf8)) { self.document = document }

    func set(_ document: [UInt8]) {
        lock.withLock {
            self.document = document; version += 1
        }
    }
    func fail(with error: KeySourceError?) { lock.withLock { failure = error } }
    var fetches: Int { lock.withLock { fetchCount } }

    func fetch(ifNoneMatch etag: String?) throws(KeySourceError) -> KeyFetch {
        let (doc, tag, error) = lock.withLock { () -> ([UInt8], String, KeySourceError?) in
            fetchCount += 1
            return (document, "\"v\(version)\"", failure)
        }
        if let error { throw error }
        if etag == tag { return .notModified(KeyFreshness(maxAge: maxAge, etag: tag)) }
        return .document(doc, KeyFreshness(maxAge: maxAge, etag: tag))
    }
}

/// HMAC JWKS documents and tokens for store tests (HS256: cheap, so the
/// concurrency tests verify many tokens).
enum StoreKit {
    static func secret(_ label: String) -> [UInt8] {
        Array((label + String(repeating: "#", count: 40)).utf8.prefix(40))
    }

    static func jwk(kid: String) -> String {
        #"{"kty":"oct","kid":"\#(kid)","alg":"HS256","k":"\#(Base64URL.encode(secret(kid)))"}"#
    }

    /// A JWKS with one HS256 key per kid; each key's secret derives from its kid.
    static func jwks(_ kids: [String]) -> [UInt8] {
        Array(#"{"keys":[\#(kids.map(jwk).joined(separator: ","))]}"#.utf8)
    }

    static func token(
        kid: String, iss: String, aud: String = "app", exp: Int64 = 4_000_000_000, secretOf: String? = nil
    ) -> String {
        HS256Minter(secret: secret(secretOf ?? kid), kid: kid)
            .token(claims: #"{"iss":"\#(iss)","aud":"\#(aud)","sub":"u","exp":\#(exp)}"#)
    }
}
