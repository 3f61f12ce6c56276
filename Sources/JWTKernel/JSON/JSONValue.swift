/// A parsed JSON document for cold paths (key sets, `jwtk inspect`, claim
/// accessors), built on the same strict `JSONParser` as the hot path.
public indirect enum JSONValue: Sendable, Equatable {
    case object([Member])
    case array([JSONValue])
    case string(String)
    /// The number's original text, so no precision is lost or invented.
    case number(String)
    case bool(Bool)
    case null

    public struct Member: Sendable, Equatable {
        public var name: String
        public var value: JSONValue
    }

    /// Parses a whole document. A malformed one throws an error whose `offset` is where parsing stopped
    /// (`JWTError.message(locatedIn:)` shows it as a line and column).
    public static func parse(_ bytes: some Collection<UInt8>, maxDepth: Int = 32) throws(JWTError) -> JSONValue {
        let copy = Array(bytes)
        return try copy.withUnsafeBytes { raw in
            Result { () throws(JWTError) -> JSONValue in
                var parser = JSONParser(raw, maxDepth: maxDepth)
                let span: JSONSpan
                // The parser stops where the document went wrong: the error notes that offset (off the
                // token path, which uses JSONParser directly and never pays for it).
                do throws(JWTError) { span = try parser.parseDocument() } catch { throw error.at(offset: parser.pos) }
                return try build(span, raw, maxDepth: maxDepth)
            }
        }.get()
    }

    /// Builds the tree for a span `JSONParser` already validated in `raw`.
    static func build(_ span: JSONSpan, _ raw: UnsafeRawBufferPointer, maxDepth: Int) throws(JWTError) -> JSONValue {
        let base = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
        switch span.kind {
        case .string: return .string(JSONString.string(span, in: base))
        case .number:
            return .number(
                String(decoding: UnsafeRawBufferPointer(rebasing: raw[span.start..<span.end]), as: UTF8.self))
        case .true: return .bool(true)
        case .false: return .bool(false)
        case .null: return .null
        case .object:
            var members: [Member] = []
            var parser = JSONParser(bytes: base, count: span.end, at: span.start, maxDepth: maxDepth)
            try parser.parseObjectMembers(depth: 1) { (name, _, value) throws(JWTError) in
                members.append(
                    Member(name: JSONString.string(name, in: base), value: try build(value, raw, maxDepth: maxDepth)))
            }
            return .object(members)
        case .array:
            var elements: [JSONValue] = []
            var parser = JSONParser(bytes: base, count: span.end, at: span.start, maxDepth: maxDepth)
            try parser.parseArrayElements(depth: 1) { (value) throws(JWTError) in
                elements.append(try build(value, raw, maxDepth: maxDepth))
            }
            return .array(elements)
        }
    }

    public subscript(name: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.name == name }?.value
    }

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var objectValue: [Member]? {
        if case .object(let m) = self { return m }
        return nil
    }

    public var doubleValue: Double? {
        if case .number(let text) = self { return Double(text) }
        return nil
    }

    /// Compact (one line) or indented JSON text.
    public func serialized(pretty: Bool = false) -> String {
        var out = ""
        write(to: &out, pretty: pretty, indent: 0)
        return out
    }

    private func write(to out: inout String, pretty: Bool, indent: Int) {
        let pad = pretty ? String(repeating: "  ", count: indent + 1) : ""
        let close = pretty ? "\n" + String(repeating: "  ", count: indent) : ""
        switch self {
        case .string(let s): JSONValue.writeString(s, to: &out)
        case .number(let n): out += n
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        case .array(let elements):
            if elements.isEmpty { out += "[]"; return }
            out += "["
            for (i, e) in elements.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + pad }
                e.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            out += close + "]"
        case .object(let members):
            if members.isEmpty { out += "{}"; return }
            out += "{"
            for (i, m) in members.enumerated() {
                if i > 0 { out += "," }
                if pretty { out += "\n" + pad }
                JSONValue.writeString(m.name, to: &out)
                out += pretty ? ": " : ":"
                m.value.write(to: &out, pretty: pretty, indent: indent + 1)
            }
            out += close + "}"
        }
    }

    /// Writes `s` as a JSON string literal, escaping what RFC 8259 requires.
    @_spi(Internals)
    public static func writeString(_ s: String, to out: inout String) {
        out += "\""
        for scalar in s.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: out.unicodeScalars.append(scalar)
            }
        }
        out += "\""
    }
}
