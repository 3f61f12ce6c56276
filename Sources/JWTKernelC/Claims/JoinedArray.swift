import CJWTK
@_spi(Internals) import JWTKernel

/// jwtk_claim_at's JWTK_AT_JOIN: an array of scalars as one comma-separated text, the way NGINX Plus
/// shows an array claim in $jwt_claim_ variables ("admin,ops"), written into the document's join area
/// at the array's own offset (ContextState explains why that region is the array's alone).
extension ContextState {
    /// The joined text, or nil when an element is an object or an array (the caller answers JSON text).
    func joined(_ array: JSONSpan, _ region: VerifiedLayout.Document) -> jwtk_str? {
        // Safety: `array` is a span the pointer walk found in this document; the join area has the document's
        // size, and the joined text fits in the array's span: each string decodes to no more than its quoted
        // text, every other scalar is copied as is, one "," per separator, and the brackets are not written.
        let doc = region.start.assumingMemoryBound(to: UInt8.self)
        let out = (arena + region.joinOffset + array.start).assumingMemoryBound(to: UInt8.self)
        var n = 0
        var scalars = true
        // Stopping at a nested value leaves only what was written for the scalars before it, inside this
        // array's region, where no other joined array can lie (it would have to be nested in one of them).
        JSONPointer.forEachElement(of: array, in: doc) { element in
            guard scalars else { return }
            switch element.kind {
            case .object, .array:
                scalars = false
                return
            case .string:
                if n > 0 { out[n] = 0x2C; n += 1 }
                n += JSONString.decode(element, in: doc, into: out + n, capacity: array.count - n) ?? 0
            case .number, .true, .false, .null:
                if n > 0 { out[n] = 0x2C; n += 1 }
                (out + n).update(from: doc + element.start, count: element.count)
                n += element.count
            }
        }
        guard scalars else { return nil }
        return jwtk_str(ptr: UnsafeRawPointer(out).assumingMemoryBound(to: CChar.self), len: n)
    }
}
