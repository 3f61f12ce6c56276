// What a JSON text holds outside its strings, found by a scan that skips string contents:
// how deep it nests, how many members its objects have in all, and whether it uses one of the
// constructs jwt-kernel refuses on purpose (docs/DIFFERENCES.md S6-S10). The Foundation
// differential uses it to tell a documented refusal from a disagreement.
struct StructuralShape {
    var maxDepth = 0
    /// ':' outside strings: in a valid document, the number of object members at all depths.
    var colons = 0
    /// A \uD800-\uDFFF escape that is not a high surrogate directly followed by a low one.
    var loneSurrogateEscape = false
    /// 'N' or 'I' outside strings: NaN, Infinity, -Infinity (no valid JSON token has them).
    var nonstandardLiteral = false
    /// A number beyond Double's range (5e600): valid JSON, which jwt-kernel keeps as text and
    /// Foundation refuses (RFC 8259 §9 lets a parser limit the range of numbers).
    var numberBeyondDouble = false
    /// A ',' directly (whitespace aside) before '}' or ']': not JSON (RFC 8259 §4, §5), and
    /// accepted by Foundation's parser.
    var trailingComma = false

    init(_ raw: UnsafeRawBufferPointer) {
        var depth = 0, i = 0
        let n = raw.count
        func hex4(_ at: Int) -> UInt32? {
            guard at + 4 <= n else { return nil }
            var v: UInt32 = 0
            for k in at..<at + 4 {
                let c = raw[k]
                let d: UInt8
                switch c {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = c - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = c - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = c - UInt8(ascii: "A") + 10
                default: return nil
                }
                v = v << 4 | UInt32(d)
            }
            return v
        }
        while i < n {
            switch raw[i] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                maxDepth = max(maxDepth, depth)
            case UInt8(ascii: "}"), UInt8(ascii: "]"): depth -= 1
            case UInt8(ascii: ":"): colons += 1
            case UInt8(ascii: ","):
                var j = i + 1
                while j < n, [0x20, 0x09, 0x0A, 0x0D].contains(raw[j]) { j += 1 }
                if j < n, raw[j] == UInt8(ascii: "}") || raw[j] == UInt8(ascii: "]") { trailingComma = true }
            case UInt8(ascii: "N"), UInt8(ascii: "I"): nonstandardLiteral = true
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var j = i
                while j < n, "0123456789+-.eE".utf8.contains(raw[j]) { j += 1 }
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: raw[i..<j]), as: UTF8.self)
                if let d = Double(text), d.isInfinite { numberBeyondDouble = true }
                i = j
                continue
            case UInt8(ascii: "\""):
                i += 1
                while i < n, raw[i] != UInt8(ascii: "\"") {
                    if raw[i] == UInt8(ascii: "\\"), i + 1 < n {
                        if raw[i + 1] == UInt8(ascii: "u"), let u = hex4(i + 2), (0xD800...0xDFFF).contains(u) {
                            let pairedLow =
                                u < 0xDC00 && i + 7 < n && raw[i + 6] == UInt8(ascii: "\\")
                                && raw[i + 7] == UInt8(ascii: "u")
                                && hex4(i + 8).map { (0xDC00...0xDFFF).contains($0) } == true
                            if pairedLow { i += 12; continue }
                            loneSurrogateEscape = true
                        }
                        i += 2
                        continue
                    }
                    i += 1
                }
            default: break
            }
            i += 1
        }
    }
}
