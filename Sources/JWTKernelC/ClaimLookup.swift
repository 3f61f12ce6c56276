@_spi(Internals) import JWTKernel

/// Finds a claim by name in a verified claims document, with dotted paths for nested members.
/// At each object level the whole remaining name is tried first, so a member whose own name holds
/// dots ("https://example.com/roles") is found; then each dot, left to right, splits the name into
/// a member that must be an object and the rest. Parses only validated JSON; allocates nothing.
enum ClaimLookup {
    /// The value's span with offsets in `doc`; nil when absent.
    static func find(_ name: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer) -> JSONSpan? {
        find(name, in: doc, objectStart: 0, objectEnd: doc.count, depth: 0)
    }

    private static func find(
        _ name: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer,
        objectStart: Int, objectEnd: Int, depth: Int
    ) -> JSONSpan? {
        guard depth < JSONParser.defaultMaxDepth else { return nil }
        if let hit = member(name, in: doc, objectStart, objectEnd) { return hit }
        var i = 0
        while i < name.count {
            if name[i] == 0x2E {
                let head = UnsafeRawBufferPointer(rebasing: name[0..<i])
                let rest = UnsafeRawBufferPointer(rebasing: name[(i + 1)...])
                if let inner = member(head, in: doc, objectStart, objectEnd), inner.kind == .object,
                    let hit = find(rest, in: doc, objectStart: inner.start, objectEnd: inner.end, depth: depth + 1)
                {
                    return hit
                }
            }
            i += 1
        }
        return nil
    }

    /// The member named exactly `name` of the object whose text is doc[start..<end].
    private static func member(
        _ name: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer, _ start: Int, _ end: Int
    ) -> JSONSpan? {
        // Safety: start..<end is a span the parser reported inside `doc` (or all of it).
        let text = UnsafeRawBufferPointer(rebasing: doc[start..<end])
        guard let base = text.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return nil }
        var found: JSONSpan?
        var parser = JSONParser(text)
        // Validated before (the core parsed the claims strictly); a failure here just means "absent".
        try? parser.forEachTopLevelMember { (memberName, value) throws(JWTError) in
            if found == nil, JSONString.equals(memberName, in: base, name) { found = value }
        }
        guard var span = found else { return nil }
        span.start += start
        span.end += start
        return span
    }
}
