/// The response headers a key fetch acts on, collected line by line as curl
/// delivers them. A new status line (a redirect, a `100 Continue`) starts over.
/// SPI for the fuzzer (Fuzz/Sources/FuzzRemoteResponse), which feeds it header bytes.
@_spi(Fuzzing) public struct HTTPResponseHead {
    public var cacheControlMaxAge: Int64?
    public var noCache = false
    public var etag: String?
    public var contentType: String?

    public init() {}

    /// Header lines longer than this are ignored (no header the fetch uses is near it).
    public static let maxLineLength = 8 * 1024

    public mutating func consume(line raw: UnsafeRawBufferPointer) {
        guard raw.count <= Self.maxLineLength else { return }
        let line = String(decoding: raw, as: UTF8.self)
        if line.hasPrefix("HTTP/") {
            self = HTTPResponseHead()
            return
        }
        guard let colon = line.firstIndex(of: ":") else { return }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingCharacters(in: " \t\r\n")
        switch name {
        case "cache-control": parseCacheControl(value)
        case "etag": etag = value.isEmpty ? nil : value
        case "content-type": contentType = value.lowercased()
        default: break
        }
    }

    /// `max-age=N` (the last one wins; a malformed one is ignored); `no-cache`
    /// and `no-store` mean "refresh as soon as allowed" (the refresher clamps it).
    private mutating func parseCacheControl(_ value: String) {
        for directive in value.split(separator: ",") {
            let d = directive.trimmingCharacters(in: " \t").lowercased()
            if d == "no-cache" || d == "no-store" {
                noCache = true
            } else if d.hasPrefix("max-age=") {
                let digits = d.dropFirst("max-age=".count).trimmingCharacters(in: "\"")
                // At most 10 digits: an absurd value cannot overflow, and the refresher clamps it anyway.
                if !digits.isEmpty, digits.count <= 10, digits.allSatisfy({ $0.isASCII && $0.isNumber }) {
                    cacheControlMaxAge = Int64(digits)
                }
            }
        }
    }

    /// Seconds the document may be used, as the server said; nil: it did not say.
    public var maxAge: Int64? { noCache ? 0 : cacheControlMaxAge }

    /// JSON media types: `application/json`, `application/jwk-set+json`, and the like.
    public var isJSONOrUnlabelled: Bool {
        guard let contentType else { return true }
        let essence = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: " \t") } ?? ""
        return essence == "application/json" || essence.hasSuffix("+json") || essence == "text/json"
    }
}

extension String {
    /// Without the given characters at either end, compared as Unicode scalars
    /// (so "\r\n" is two characters here, not one grapheme). No Foundation in this module.
    func trimmingCharacters(in set: String) -> String {
        let drop = Set(set.unicodeScalars)
        var scalars = Substring(self).unicodeScalars[...]
        while let c = scalars.first, drop.contains(c) { scalars = scalars.dropFirst() }
        while let c = scalars.last, drop.contains(c) { scalars = scalars.dropLast() }
        return String(String.UnicodeScalarView(scalars))
    }
}

extension Substring {
    func trimmingCharacters(in set: String) -> String { String(self).trimmingCharacters(in: set) }
}
