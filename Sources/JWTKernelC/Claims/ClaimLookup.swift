@_spi(Internals) import JWTKernel

/// Finds a claim by name in a verified claims document, with dotted paths for nested members.
/// At each object level the whole remaining name is tried first, so a member whose own name holds
/// dots ("https://example.com/roles") is found; then each dot, left to right, splits the name into
/// a member that must be an object and the rest. The member search is the core's JSON Pointer one
/// (a name is a reference token without escapes), so jwtk_claim and jwtk_claim_at cannot disagree
/// on what a member is. Parses only validated JSON; allocates nothing.
enum ClaimLookup {
    /// The value's span with offsets in `doc`; nil when absent.
    static func find(_ name: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer) -> JSONSpan? {
        guard let root = JSONPointer.root(of: doc), root.kind == .object else { return nil }
        return find(name, in: doc, object: root, depth: 0)
    }

    private static func find(
        _ name: UnsafeRawBufferPointer, in doc: UnsafeRawBufferPointer, object: JSONSpan, depth: Int
    ) -> JSONSpan? {
        guard depth < JSONParser.defaultMaxDepth else { return nil }
        if let hit = JSONPointer.member(JSONPointer.Token(name), in: doc, of: object) { return hit }
        var i = 0
        while i < name.count {
            if name[i] == 0x2E {
                let head = UnsafeRawBufferPointer(rebasing: name[0..<i])
                let rest = UnsafeRawBufferPointer(rebasing: name[(i + 1)...])
                if let inner = JSONPointer.member(JSONPointer.Token(head), in: doc, of: object), inner.kind == .object,
                    let hit = find(rest, in: doc, object: inner, depth: depth + 1)
                {
                    return hit
                }
            }
            i += 1
        }
        return nil
    }
}
