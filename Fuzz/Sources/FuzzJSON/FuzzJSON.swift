// FuzzJSON: bytes through JSONParser (parseDocument, forEachTopLevelMember) and JSONValue.parse.
//
// Invariants:
//   1. JSONValue.parse and parseDocument accept exactly the same documents (both refuse
//      duplicate member names at every depth since 57a1d7f).
//   2. forEachTopLevelMember agrees with parseDocument on objects, and a smaller maxDepth never
//      accepts more.
//   3. JSONValue.parse(x).serialized() (compact and pretty) reparses to an equal value, and
//      serialization is a fixed point; JSONText.compact(x) reparses to the same value.
//   4. Top-level member names and string values decode (JSONStringDecoder, JSONString.*)
//      exactly as an independent reference unescaper says; a validated span holds no raw
//      quote or control byte and decodes to valid UTF-8 (checks the 8-bytes-at-a-time scan);
//      accepted names are distinct.
//   5. Foundation's JSONSerialization accepts the same documents except for the documented
//      strictness, and reads the same values (FoundationOracle.swift).
//   6. The 16-byte string scan (JSONParser.plainPrefixLength) skips only plain bytes and stops
//      exactly at the first special one, or short of the end with under 16 bytes left, from
//      every starting offset (against a byte loop).
//   7. JSONParser (block-mask string scan, inlined member loop, name keys, one-load literals)
//      and JSONReferenceParser (one byte at a time, a Set of decoded names) give the same
//      verdict and the same spans: parseDocument's span, every top-level member's name and
//      value span, at maxDepth 32 and 3.
import FuzzSupport
@_spi(Internals) import JWTKernel
@_spi(Internals) import JWTKernelTestOracles

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    // A heap copy of exactly `size` bytes, so ASan sees any read past the document.
    let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
    defer { buf.deallocate() }
    if size > 0 { buf.copyMemory(from: UnsafeRawBufferPointer(start: data, count: size)) }
    checkJSON(UnsafeRawBufferPointer(buf))
    return 0
}

func checkJSON(_ raw: UnsafeRawBufferPointer) {
    var parser = JSONParser(raw)
    let doc = Result { () throws(JWTError) in try parser.parseDocument() }
    let value = Result { () throws(JWTError) in try JSONValue.parse(raw) }

    // 1.
    switch (doc, value) {
    case (.failure(let e), .success):
        invariantFailed("JSONValue accepts what parseDocument refuses (\(e))")
    case (.success, .failure(let e)):
        invariantFailed("parseDocument accepts what JSONValue refuses (\(e))")
    default: break
    }
    if case .success(let span) = doc {
        require(span.start >= 0 && span.start <= span.end && span.end <= raw.count, "span \(span) outside the buffer")
    }

    // 6.
    checkPlainPrefix(raw)

    // 7.
    checkAgainstReference(raw, doc: try? doc.get())

    // 5.
    checkAgainstFoundation(raw, ours: try? value.get())

    // 2. Depth limit monotonic.
    var shallow = JSONParser(raw, maxDepth: 3)
    if (try? shallow.parseDocument()) != nil { require(doc.isSuccess, "maxDepth 3 accepts what the default refuses") }

    // 2. Top-level members.
    var names: [JSONSpan] = []
    var stringValues: [JSONSpan] = []
    var numberValues: [JSONSpan] = []
    var members = JSONParser(raw)
    let each = Result { () throws(JWTError) in
        try members.forEachTopLevelMember { (name, value) throws(JWTError) in
            require(name.kind == .string && name.end <= raw.count, "member name span \(name)")
            names.append(name)
            if value.kind == .string { stringValues.append(value) }
            if value.kind == .number { numberValues.append(value) }
        }
    }
    let isObject: Bool = if case .success(let s) = doc { s.kind == .object } else { false }
    switch each {
    case .success:
        require(isObject, "forEachTopLevelMember accepts what parseDocument does not accept as an object")
    case .failure(let e):
        require(!isObject, "forEachTopLevelMember refuses an object parseDocument accepts: \(e)")
    }

    // 4. String decoding against the reference.
    let bytes = raw.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) }
    if case .success = each, let bytes {
        var decodedNames: [[UInt8]] = []
        for span in names + stringValues {
            let ref = referenceUnescape(raw, span)
            checkStringSpan(span, bytes, ref)
            if decodedNames.count < names.count { decodedNames.append(ref) }
        }
        require(Set(decodedNames).count == decodedNames.count, "forEachTopLevelMember let a duplicate name through")
        for i in names.indices.prefix(12) {
            for j in names.indices.prefix(12) where i < j {
                require(
                    !JSONString.equals(names[i], names[j], in: bytes), "JSONString.equals says distinct names are equal"
                )
            }
        }
        if case .success(.object(let tree)) = value {
            require(
                tree.map { Array($0.name.utf8) } == decodedNames, "JSONValue member names differ from the decoded spans"
            )
            for span in numberValues {
                let text = String(decoding: UnsafeRawBufferPointer(rebasing: raw[span.start..<span.end]), as: UTF8.self)
                require(tree.contains { $0.value == .number(text) }, "number \(text) missing from the tree")
            }
        }
    }

    // 3. Round trips.
    if case .success(let v) = value {
        let compact = v.serialized()
        guard let v2 = try? JSONValue.parse(Array(compact.utf8)) else {
            invariantFailed("serialized() does not reparse: \(compact)")
        }
        require(v2 == v, "serialized() reparses to a different value")
        require(v2.serialized() == compact, "serialization is not a fixed point")
        let pretty = v.serialized(pretty: true)
        require(
            (try? JSONValue.parse(Array(pretty.utf8))) == v, "serialized(pretty:) does not reparse to the same value")
        let squeezed = JSONText.compact(raw)
        require((try? JSONValue.parse(squeezed)) == v, "JSONText.compact changes the value")
    } else if case .success = doc {
        let squeezed = JSONText.compact(raw)
        let ok = squeezed.withUnsafeBytes { b -> Bool in
            var q = JSONParser(b); return (try? q.parseDocument()) != nil
        }
        require(ok, "JSONText.compact of a valid document is invalid")
    }
}

/// Every way the library reads a validated string span must give `ref`.
func checkStringSpan(_ span: JSONSpan, _ bytes: UnsafePointer<UInt8>, _ ref: [UInt8]) {
    var it = JSONStringDecoder(span, in: bytes)
    var viaDecoder: [UInt8] = []
    while let b = it.next() { viaDecoder.append(b) }
    require(viaDecoder == ref, "JSONStringDecoder gives \(viaDecoder), reference \(ref)")
    require(Array(JSONString.string(span, in: bytes).utf8) == ref, "JSONString.string differs from the reference")
    require(ref.withUnsafeBytes { JSONString.equals(span, in: bytes, $0) }, "JSONString.equals refuses its own value")
    require(
        !(ref + [0x41]).withUnsafeBytes { JSONString.equals(span, in: bytes, $0) },
        "JSONString.equals accepts a longer value")
    if !ref.isEmpty {
        require(
            !ref.dropLast().withUnsafeBytes { JSONString.equals(span, in: bytes, $0) },
            "JSONString.equals accepts a prefix")
    }
    // The name key depends on the decoded bytes only: escaped and plain spellings agree.
    let plain = ref.withUnsafeBufferPointer {
        JSONNameKey(
            JSONSpan(start: 0, end: ref.count, kind: .string), in: $0.baseAddress ?? UnsafePointer(bitPattern: 1)!)
    }
    require(JSONNameKey(span, in: bytes) == plain, "JSONNameKey differs between a string and its decoded bytes")
    require(!plain.isExact || ref.count <= 7, "an exact name key for a string longer than 7 bytes")
    // Exact-size heap buffers so ASan catches a write past the capacity.
    let exact = UnsafeMutablePointer<UInt8>.allocate(capacity: max(ref.count, 1))
    defer { exact.deallocate() }
    let n = JSONString.decode(span, in: bytes, into: exact, capacity: ref.count)
    require(
        n == ref.count && Array(UnsafeBufferPointer(start: exact, count: ref.count)) == ref, "JSONString.decode differs"
    )
    if !ref.isEmpty {
        require(
            JSONString.decode(span, in: bytes, into: exact, capacity: ref.count - 1) == nil,
            "JSONString.decode overflows its capacity")
    }
}

/// An independent unescaper for a span the parser validated (RFC 8259 §7).
func referenceUnescape(_ raw: UnsafeRawBufferPointer, _ span: JSONSpan) -> [UInt8] {
    var out: [UInt8] = []
    var i = span.start
    func hex(_ at: Int) -> UInt32 {
        var v: UInt32 = 0
        for k in 0..<4 {
            let c = raw[at + k]
            let d: UInt32 =
                switch c {
                case 0x30...0x39: UInt32(c - 0x30)
                case 0x41...0x46: UInt32(c - 0x41 + 10)
                case 0x61...0x66: UInt32(c - 0x61 + 10)
                default: invariantFailed("validated \\u escape has non-hex \(c)")
                }
            v = v * 16 + d
        }
        return v
    }
    while i < span.end {
        let c = raw[i]
        require(c >= 0x20 && c != 0x22, "validated string span holds raw byte \(c) at \(i)")
        guard c == 0x5C else { out.append(c); i += 1; continue }
        let e = raw[i + 1]
        i += 2
        switch e {
        case 0x22, 0x5C, 0x2F: out.append(e)
        case 0x62: out.append(0x08)
        case 0x66: out.append(0x0C)
        case 0x6E: out.append(0x0A)
        case 0x72: out.append(0x0D)
        case 0x74: out.append(0x09)
        case 0x75:
            var scalar = hex(i)
            i += 4
            if (0xD800...0xDBFF).contains(scalar) {
                require(raw[i] == 0x5C && raw[i + 1] == 0x75, "validated high surrogate without a low one")
                let low = hex(i + 2)
                require((0xDC00...0xDFFF).contains(low), "validated high surrogate with \(low)")
                scalar = 0x10000 + (scalar - 0xD800) * 0x400 + (low - 0xDC00)
                i += 6
            }
            guard let u = Unicode.Scalar(scalar) else { invariantFailed("validated escape is not a scalar: \(scalar)") }
            out += Array(String(Character(u)).utf8)
        default:
            invariantFailed("validated string has escape \\\(e)")
        }
    }
    require(String(validating: out, as: UTF8.self) != nil, "validated string decodes to invalid UTF-8")
    return out
}

extension Result {
    var isSuccess: Bool { if case .success = self { true } else { false } }
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzJSON", fuzzJSON) }
}
#endif

func checkPlainPrefix(_ raw: UnsafeRawBufferPointer) {
    for offset in 0..<min(raw.count, 48) {
        let tail = UnsafeRawBufferPointer(rebasing: raw[offset...])
        let r = JSONParser.plainPrefixLength(tail)
        let first = tail.firstIndex { $0 < 0x20 || $0 >= 0x80 || $0 == 0x22 || $0 == 0x5C } ?? tail.count
        require(r <= first, "the vector scan skipped a special byte at \(first)")
        require(r == first || (tail.count - r < 16 && r % 16 == 0), "the vector scan stopped early at \(r)")
    }
}

func checkAgainstReference(_ raw: UnsafeRawBufferPointer, doc: JSONSpan?) {
    var ref = JSONReferenceParser(raw)
    require(ref.parseDocument() == doc, "parseDocument and the reference parser disagree")
    var members: [JSONReferenceParser.Member] = []
    var walk = JSONParser(raw)
    let ok =
        (try? walk.forEachTopLevelMember { (n, v) throws(JWTError) in members.append(.init(name: n, value: v)) }) != nil
    require((ok ? members : nil) == ref.topLevelMembers(), "top-level members differ from the reference parser's")
    var shallow = JSONParser(raw, maxDepth: 3)
    var shallowRef = JSONReferenceParser(raw, maxDepth: 3)
    require((try? shallow.parseDocument()) == shallowRef.parseDocument(), "maxDepth 3: the reference disagrees")
}
