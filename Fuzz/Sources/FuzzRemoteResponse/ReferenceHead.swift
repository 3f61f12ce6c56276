// An independent reading of the response headers a key fetch acts on, byte by byte (RFC 9111
// Cache-Control max-age / no-cache / no-store, ETag, Content-Type), to compare with
// `HTTPResponseHead`. Header values are ASCII in practice; where a value holds other bytes the
// library's Unicode string handling may split or case-fold differently (a combining mark after
// ":" or "," makes one character with it), so only all-ASCII header blocks are compared exactly;
// others only for range and no crash.
struct ReferenceHead {
    var maxAge: Int64?
    var noCache = false
    var etag: String?
    var contentType: [UInt8]?
    /// Some line held non-ASCII bytes: compare loosely.
    var nonASCII = false

    init(lines: [[UInt8]], maxLineLength: Int) {
        let nonASCII = lines.contains { $0.count <= maxLineLength && $0.contains { $0 >= 0x80 } }
        defer { self.nonASCII = nonASCII }
        for line in lines where line.count <= maxLineLength {
            if line.starts(with: Array("HTTP/".utf8)) {
                self = ReferenceHead(lines: [], maxLineLength: maxLineLength)
                continue
            }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = line[..<colon].map(Self.lower)
            let value = Self.trim(Array(line[(colon + 1)...]), [0x20, 0x09, 0x0d, 0x0a])
            switch name {
            case Array("cache-control".utf8):
                for directive in value.split(separator: UInt8(ascii: ",")) {
                    let d = Self.trim(Array(directive), [0x20, 0x09]).map(Self.lower)
                    if d == Array("no-cache".utf8) || d == Array("no-store".utf8) {
                        noCache = true
                    } else if d.starts(with: Array("max-age=".utf8)) {
                        let digits = Self.trim(Array(d.dropFirst(8)), [UInt8(ascii: "\"")])
                        if !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ (0x30...0x39).contains($0) }) {
                            maxAge = digits.reduce(Int64(0)) { $0 * 10 + Int64($1 - 0x30) }
                        }
                    }
                }
            case Array("etag".utf8):
                etag = value.isEmpty ? nil : String(decoding: value, as: UTF8.self)
            case Array("content-type".utf8):
                contentType = value.map(Self.lower)
            default: break
            }
        }
    }

    var effectiveMaxAge: Int64? { noCache ? 0 : maxAge }

    /// application/json, any +json type, text/json, or no Content-Type at all.
    var isJSON: Bool {
        guard let contentType else { return true }
        let essence =
            contentType.split(separator: UInt8(ascii: ";")).first.map { Self.trim(Array($0), [0x20, 0x09]) } ?? []
        return essence == Array("application/json".utf8) || essence == Array("text/json".utf8)
            || (essence.count >= 5 && essence.suffix(5).elementsEqual("+json".utf8))
    }

    static func lower(_ b: UInt8) -> UInt8 { (0x41...0x5a).contains(b) ? b + 0x20 : b }

    static func trim(_ bytes: [UInt8], _ set: Set<UInt8>) -> [UInt8] {
        var s = bytes[...]
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return Array(s)
    }
}
