import CJWTK
@_spi(Internals) import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// Chooses the core verifier for a token when the keystore holds keys per issuer: the token's
/// `iss` names the keys (the issuer's own, else the any-issuer keys), so one issuer's key can never
/// verify another issuer's tokens. Reading `iss` decodes and strictly parses the payload once more
/// (into caller scratch, no allocation); with only any-issuer keys this step is skipped.
enum IssuerRouting {
    enum Route {
        /// Verify with this issuer entry's verifier (`entry.verifier` is not nil).
        case verify(Routes.Entry)
        /// No keys for this token: run `Routes.noKeys` and report `status` where it finds no key.
        case noKeys(Int32)
    }

    /// `scratch` must hold at least 2 * token.count bytes.
    static func route(_ token: UnsafeRawBufferPointer, _ routes: Routes, scratch: UnsafeMutableRawPointer) -> Route {
        guard routes.needsRouting else { return unrouted(routes) }
        switch issuer(of: token, scratch: scratch) {
        case .found(let iss):
            if let entry = routes.entry(forIssuer: iss) {
                // An issuer with its own entry never falls back to the any-issuer keys (pull mode before the
                // first fetch, or keys withdrawn after max_staleness): keys_unavailable.
                return entry.verifier == nil ? .noKeys(JWTK_KEYS_UNAVAILABLE) : .verify(entry)
            }
            if let any = routes.anyIssuer { return .verify(any) }
            return .noKeys(routes.accepts(issuer: iss) ? JWTK_KEYS_UNAVAILABLE : JWTK_UNKNOWN_ISSUER)
        case .absent:
            return routes.anyIssuer.map(Route.verify) ?? .noKeys(JWTK_MISSING_CLAIM)
        case .unreadable:
            return routes.anyIssuer.map(Route.verify) ?? .noKeys(JWTK_MALFORMED)
        }
    }

    /// `route`, a repeated token first: routed by its cache entry's claims (`CachedRouting`: no decode, no
    /// parse), and `probe` set to that entry for the hit; any other token by its payload.
    @inline(__always)
    static func route(
        _ token: UnsafeRawBufferPointer, _ routes: Routes, scratch: UnsafeMutableRawPointer, probe: inout CacheProbe?
    ) -> Route {
        if routes.needsRouting, let found = routes.noKeys.probeCache(token),
            let entry = CachedRouting.route(found, routes)
        {
            probe = found
            return .verify(entry)
        }
        return route(token, routes, scratch: scratch)
    }

    /// The route when the store holds only any-issuer keys, or none.
    static func unrouted(_ routes: Routes) -> Route {
        routes.anyIssuer.map(Route.verify) ?? .noKeys(JWTK_KEYS_UNAVAILABLE)
    }

    enum Issuer {
        case found(UnsafeRawBufferPointer)
        case absent
        case unreadable
    }

    /// The decoded `iss` string, in `scratch` or in the decoded payload there.
    static func issuer(of token: UnsafeRawBufferPointer, scratch: UnsafeMutableRawPointer) -> Issuer {
        // Safety: every read stays inside `token` (memchr bounds, distances from its base); the payload decodes
        // into `scratch`, which holds 2 * token.count bytes: the decoded payload (< token.count) and behind it
        // the decoded iss (never longer than its escaped text).
        guard let base = token.baseAddress, !token.isEmpty else { return .unreadable }
        let bytes = base.assumingMemoryBound(to: UInt8.self)
        guard let dot1 = memchr(bytes, 0x2E, token.count) else { return .unreadable }
        let start = bytes.distance(to: dot1.assumingMemoryBound(to: UInt8.self)) + 1
        guard start < token.count, let dot2 = memchr(bytes + start, 0x2E, token.count - start) else {
            return .unreadable
        }
        let end = bytes.distance(to: dot2.assumingMemoryBound(to: UInt8.self))
        let segment = UnsafeRawBufferPointer(start: bytes + start, count: end - start)
        guard let count = Base64URL.decodedCount(segment.count), count > 0,
            Base64URL.decode(segment, into: scratch) != nil
        else { return .unreadable }
        let payload = UnsafeRawBufferPointer(start: scratch, count: count)
        let json = scratch.assumingMemoryBound(to: UInt8.self)
        var iss: JSONSpan?
        var parser = JSONParser(payload)
        do {
            try parser.forEachTopLevelMember { (name, value) throws(JWTError) in
                if JSONString.equals(name, in: json, "iss") { iss = value }
            }
        } catch {
            return .unreadable
        }
        guard let iss else { return .absent }
        guard iss.kind == .string else { return .unreadable }
        if !iss.escaped { return .found(UnsafeRawBufferPointer(start: json + iss.start, count: iss.count)) }
        // A decoded string is never longer than its escaped text; the payload's copy fits behind it.
        let dst = json + count
        let n = JSONString.decode(iss, in: json, into: dst, capacity: iss.count) ?? 0
        return .found(UnsafeRawBufferPointer(start: dst, count: n))
    }
}
