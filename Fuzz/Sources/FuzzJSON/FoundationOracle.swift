// Differential: jwt-kernel's JSON reader against Foundation's JSONSerialization, an independent
// parser, on accept/reject and on the values read.
//
// jwt-kernel is stricter on purpose (docs/DIFFERENCES.md): duplicate member names (S6), a byte
// order mark (S7), lone surrogate escapes (S8), nesting deeper than 32 (S9), NaN/Infinity (S10).
// Those are the only refusals Foundation may disagree with; each is recognised from the text
// itself (StructuralShape), not from jwt-kernel's error, so a refusal for another reason still
// fails. Foundation in turn refuses numbers beyond Double's range (5e600), which jwt-kernel keeps
// as text (RFC 8259 §9 allows either), and accepts a trailing comma, which is not JSON: such
// documents are not compared. Inputs Foundation would read as UTF-16/32 (a NUL byte, a UTF-16/32 BOM) are skipped:
// JWTs carry UTF-8 only, and Foundation's encoding detection would compare different texts.
import Foundation
import FuzzSupport
@_spi(Internals) import JWTKernel

func checkAgainstFoundation(_ raw: UnsafeRawBufferPointer, ours: JSONValue?) {
    guard raw.count <= 8192, !raw.contains(0) else { return }
    let bom =
        raw.starts(with: [0xEF, 0xBB, 0xBF]) || raw.starts(with: [0xFE, 0xFF]) || raw.starts(with: [0xFF, 0xFE])
    let theirs = try? JSONSerialization.jsonObject(with: Data(raw), options: [.fragmentsAllowed])
    let shape = StructuralShape(raw)
    switch (ours, theirs) {
    case (nil, nil):
        return
    case (.some, nil):
        if shape.numberBeyondDouble { return }
        invariantFailed("jwt-kernel accepts a document Foundation refuses")
    case (nil, let t?):
        if bom || shape.maxDepth > JSONParser.defaultMaxDepth || shape.loneSurrogateEscape || shape.nonstandardLiteral {
            return
        }
        // Foundation's own leniency: a trailing comma ({"a":1,}), which RFC 8259's grammar has not.
        if shape.trailingComma { return }
        // Duplicates: Foundation keeps one member per name, so it holds fewer than the text has.
        if foundationMemberCount(t) < shape.colons { return }
        invariantFailed("Foundation accepts a document jwt-kernel refuses, for none of the documented reasons")
    case (let v?, let t?):
        require(!bom, "jwt-kernel accepts a document starting with a byte order mark")
        sameValue(v, t, path: "$")
    }
}

func foundationMemberCount(_ t: Any) -> Int {
    if let d = t as? [String: Any] { return d.count + d.values.reduce(0) { $0 + foundationMemberCount($1) } }
    if let a = t as? [Any] { return a.reduce(0) { $0 + foundationMemberCount($1) } }
    return 0
}

/// The value jwt-kernel read equals Foundation's, member by member.
func sameValue(_ v: JSONValue, _ t: Any, path: String) {
    switch v {
    case .null:
        require(t is NSNull, "\(path): null, Foundation \(type(of: t))")
    case .bool(let b):
        require((t as? Bool) == b, "\(path): \(b), Foundation \(t)")
    case .string(let s):
        guard let ts = t as? String else { invariantFailed("\(path): string, Foundation \(type(of: t))") }
        require(
            Array(foundationSpelling(s).unicodeScalars) == Array(foundationSpelling(ts).unicodeScalars),
            "\(path): string \(s.debugDescription), Foundation \(ts.debugDescription)")
    case .number(let text):
        guard let n = t as? NSNumber, let d = Double(text) else {
            invariantFailed("\(path): number \(text), Foundation \(t)")
        }
        let f = n.doubleValue
        // Foundation may hold big integers as Decimal, whose doubleValue can round differently.
        require(d == f || abs(d - f) <= abs(d) * 1e-15, "\(path): number \(text) = \(d), Foundation \(f)")
    case .array(let items):
        guard let ta = t as? [Any] else { invariantFailed("\(path): array, Foundation \(type(of: t))") }
        require(items.count == ta.count, "\(path): \(items.count) elements, Foundation \(ta.count)")
        for (k, item) in items.enumerated() { sameValue(item, ta[k], path: "\(path)[\(k)]") }
    case .object(let members):
        guard let raw = t as? [String: Any] else { invariantFailed("\(path): object, Foundation \(type(of: t))") }
        let td = Dictionary(raw.map { (foundationSpelling($0.key), $0.value) }, uniquingKeysWith: { a, _ in a })
        // Names that differ in bytes but are canonically equivalent (or differ only in U+FEFF)
        // are one key to Foundation: no member-by-member comparison then.
        guard td.count == members.count else { return }
        for m in members {
            guard let tv = td[foundationSpelling(m.name)] else {
                invariantFailed("\(path): member \(m.name.debugDescription) missing in Foundation's")
            }
            sameValue(m.value, tv, path: "\(path).\(m.name)")
        }
    }
}

/// A string as compared with Foundation's: Foundation drops U+FEFF from strings and member names
/// (seen at the start and after a \u0000: its string bridging takes it for a byte order mark);
/// jwt-kernel keeps it, as RFC 8259 §7 says of string contents. So U+FEFF is left out of the
/// comparison, on both sides.
func foundationSpelling(_ s: String) -> String {
    var scalars = String.UnicodeScalarView()
    scalars.append(contentsOf: s.unicodeScalars.lazy.filter { $0 != "\u{FEFF}" })
    return String(scalars)
}
