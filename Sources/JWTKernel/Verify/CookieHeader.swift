/// Reads one cookie's value out of a `Cookie` request header: the one cookie grammar of every front end that has
/// no cookie variables of its own (through `jwtk_cookie_value`: the Envoy module's `token_cookie`; Apache and
/// others can use the same), beside `AuthorizationHeader`'s bearer grammar.
///
/// RFC 6265 section 4.2.1: `cookie-string = cookie-pair *( ";" SP cookie-pair )`, `cookie-pair = cookie-name "="
/// cookie-value`, `cookie-value = *cookie-octet / ( DQUOTE *cookie-octet DQUOTE )`. Read as section 5.4's
/// user agents write it and servers meet it: pairs split at ";", spaces and tabs around each name and value
/// skipped (some clients send ";" with no space, or more than one), a pair without "=" skipped as malformed
/// rather than ending the search. Names match byte for byte (cookie names are case-sensitive); the first pair
/// of that name wins (RFC 6265 section 5.4: the more specific path first, so the first is the one meant). A
/// value wrapped in DQUOTEs is given without them. The value is not checked further: the caller's parser (for a
/// token, the verifier) refuses what it cannot read.
public enum CookieHeader {
    /// The value's byte range in `header`, or nil when no pair has that name (an empty value is an empty range).
    /// Allocation-free.
    public static func valueRange(in header: UnsafeRawBufferPointer, name: UnsafeRawBufferPointer) -> Range<Int>? {
        guard name.count > 0 else { return nil }
        let end = header.count
        var pairStart = 0
        while pairStart < end {
            var pairEnd = pairStart
            while pairEnd < end, header[pairEnd] != 0x3B { pairEnd += 1 }  // ";"
            if let range = value(in: header, from: pairStart, to: pairEnd, named: name) { return range }
            pairStart = pairEnd + 1
        }
        return nil
    }

    /// The value of the pair at `start..<end` when its name is `name`.
    private static func value(
        in header: UnsafeRawBufferPointer, from start: Int, to end: Int, named name: UnsafeRawBufferPointer
    ) -> Range<Int>? {
        var nameStart = start
        while nameStart < end, isSpace(header[nameStart]) { nameStart += 1 }
        var equals = nameStart
        while equals < end, header[equals] != 0x3D { equals += 1 }  // "="
        guard equals < end else { return nil }  // no "=": a malformed pair, skipped
        var nameEnd = equals
        while nameEnd > nameStart, isSpace(header[nameEnd - 1]) { nameEnd -= 1 }
        guard nameEnd - nameStart == name.count else { return nil }
        for i in 0..<name.count where header[nameStart + i] != name[i] { return nil }
        var valueStart = equals + 1
        var valueEnd = end
        while valueStart < valueEnd, isSpace(header[valueStart]) { valueStart += 1 }
        while valueEnd > valueStart, isSpace(header[valueEnd - 1]) { valueEnd -= 1 }
        if valueEnd - valueStart >= 2, header[valueStart] == 0x22, header[valueEnd - 1] == 0x22 {
            valueStart += 1
            valueEnd -= 1
        }
        return valueStart..<valueEnd
    }

    @inline(__always)
    private static func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
}
