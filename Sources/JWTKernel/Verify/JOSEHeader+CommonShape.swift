/// The header almost every token carries, read without the general JSON parser:
/// `{"alg":"..."}` plus optionally `"kid"` and `"typ"`, in any order, each once,
/// no whitespace, every value a plain printable-ASCII string (no escapes).
///
/// Why it cannot change a verdict: it returns a header only for byte strings it
/// has matched completely, which are strict JSON objects whose members the full
/// parser would locate at exactly the same spans (no escapes, so no decoding;
/// no duplicates, since each name is taken once; no `crit`, no `b64`). For every
/// other input, and for an `alg` it does not know, it returns nil and the full
/// strict parser decides, errors included. `JOSEHeaderFastPathTests` and
/// `FuzzVerify` hold the two to the same result.
extension JOSEHeader {
    @inline(__always)
    static func parseCommonShape(_ header: UnsafeRawBufferPointer) -> JOSEHeader? {
        let n = header.count
        // The shortest match, `{"alg":"HS256"}`, is 15 bytes; a bound keeps every read below inside.
        guard n >= 15, let base = header.baseAddress else { return nil }
        let p = base.assumingMemoryBound(to: UInt8.self)
        guard p[0] == UInt8(ascii: "{"), p[n - 1] == UInt8(ascii: "}") else { return nil }
        var alg: JWTAlgorithm?, kid: JSONSpan?, typ: JSONSpan?
        var i = 1
        // Each member is `"nnn":"` (7 bytes), the plain value, and `"` then `,` or the final `}`.
        while true {
            guard n - i >= 9 else { return nil }
            // Safety: i + 7 <= n - 2, so the 7 bytes read (as an unaligned 8-byte load of which the top byte is
            // masked off, i + 8 <= n - 1) lie inside the header.
            let word = UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x00FF_FFFF_FFFF_FFFF
            let start = i + 7
            var end = start
            while end < n, Self.isPlain(p[end]) { end += 1 }
            // The closing quote, then `,` and another member or `}` as the header's last byte.
            guard end + 1 < n, p[end] == UInt8(ascii: "\"") else { return nil }
            let span = JSONSpan(start: start, end: end, kind: .string)
            switch word {
            case Self.algMember:
                guard alg == nil, let a = Self.algorithm(p + start, count: end - start) else { return nil }
                alg = a
            case Self.kidMember:
                guard kid == nil else { return nil }
                kid = span
            case Self.typMember:
                guard typ == nil else { return nil }
                typ = span
            default: return nil
            }
            if p[end + 1] == UInt8(ascii: "}") {
                guard end + 2 == n, let alg else { return nil }
                return JOSEHeader(alg: alg, kid: kid, typ: typ)
            }
            guard p[end + 1] == UInt8(ascii: ",") else { return nil }
            i = end + 2
        }
    }

    /// Printable ASCII other than `"` and `\`: bytes a JSON string holds as themselves.
    @inline(__always)
    private static func isPlain(_ b: UInt8) -> Bool {
        b >= 0x20 && b < 0x7F && b != UInt8(ascii: "\"") && b != UInt8(ascii: "\\")
    }

    /// `"alg":"`, `"kid":"`, `"typ":"` as little-endian 7-byte words: literals, because a
    /// computed `static let` costs a `swift_once` check per access on the hot path
    /// (`JOSEHeaderFastPathTests` reaches each through the fast path, so a wrong one fails there).
    private static var algMember: UInt64 { 0x22_3a22_676c_6122 }
    private static var kidMember: UInt64 { 0x22_3a22_6469_6b22 }
    private static var typMember: UInt64 { 0x22_3a22_7079_7422 }

    /// The algorithm named exactly by `count` plain bytes, or nil (unknown names go to the full parser,
    /// which knows how to report them).
    @inline(__always)
    private static func algorithm(_ p: UnsafePointer<UInt8>, count: Int) -> JWTAlgorithm? {
        guard count <= 7 else { return nil }
        var packed = UInt64(count) << 56
        for k in 0..<count { packed |= UInt64(p[k]) << (8 * UInt64(k)) }
        for (code, alg) in packedAlgorithms where code == packed { return alg }
        return nil
    }

    /// Every algorithm's name packed like `algorithm(_:count:)` packs the header's.
    private static let packedAlgorithms: [(UInt64, JWTAlgorithm)] = JWTAlgorithm.allCases.map { alg in
        var packed = UInt64(alg.rawValue.utf8.count) << 56
        for (k, b) in alg.rawValue.utf8.enumerated() { packed |= UInt64(b) << (8 * UInt64(k)) }
        return (packed, alg)
    }
}

/// The differential check the tests and `FuzzVerify` run on any header bytes: the
/// common-shape reader must either decline or agree with the full parser exactly,
/// and `JOSEHeader.parse` must give what the full parser gives. Not API.
@_spi(Internals)
public enum JOSEHeaderFastPathCheck {
    /// nil when they agree; otherwise what differs.
    public static func disagreement(_ header: UnsafeRawBufferPointer) -> String? {
        guard !header.isEmpty else { return nil }  // the pipeline never parses an empty header
        let full = Result { () throws(JWTError) in try JOSEHeader.parseInFull(header) }
        let both = Result { () throws(JWTError) in try JOSEHeader.parse(header) }
        switch (full, both) {
        case (.success(let a), .success(let b)):
            if !same(a, b) { return "parse and the full parser read different members" }
        case (.failure(let a), .failure(let b)):
            if a.code != b.code { return "parse fails with \(b.code), the full parser with \(a.code)" }
        case (.success, .failure(let e)): return "parse fails with \(e.code), the full parser accepts"
        case (.failure(let e), .success): return "parse accepts, the full parser fails with \(e.code)"
        }
        if let fast = JOSEHeader.parseCommonShape(header) {
            guard case .success(let a) = full else { return "the common shape accepts what the full parser refuses" }
            if !same(a, fast) { return "the common shape and the full parser read different members" }
        }
        return nil
    }

    /// Whether `parseCommonShape` takes these bytes (tests check their shapes reach it).
    public static func takesCommonShape(_ header: UnsafeRawBufferPointer) -> Bool {
        JOSEHeader.parseCommonShape(header) != nil
    }

    private static func same(_ a: JOSEHeader, _ b: JOSEHeader) -> Bool {
        a.alg == b.alg && a.kid == b.kid && a.typ == b.typ
    }
}
