import CJWTK

/// Turns a caller's (pointer, length) into a buffer view after checking it, so the core only ever
/// sees well-formed views. Each check returns the misuse status the header documents.
enum InputBytes {
    /// Bytes that must be present: non-NULL pointer, 1...limit bytes.
    static func required(
        _ pointer: UnsafePointer<CChar>?, _ length: Int, limit: Int
    ) -> Result<UnsafeRawBufferPointer, StatusError> {
        guard let pointer else { return .failure(StatusError(JWTK_E_NULL)) }
        // size_t arrives as Int: a huge size_t is negative here.
        guard length > 0, length <= limit else { return .failure(StatusError(JWTK_E_LENGTH)) }
        // Safety: the caller promises `length` readable bytes at `pointer` for the call (jwtk.h); the length is
        // positive and bounded, so the view cannot trap, and it is not kept after the call.
        return .success(UnsafeRawBufferPointer(start: pointer, count: length))
    }

    /// Text that must also be valid UTF-8 (issuer names, claim names).
    static func text(
        _ pointer: UnsafePointer<CChar>?, _ length: Int, limit: Int
    ) -> Result<UnsafeRawBufferPointer, StatusError> {
        required(pointer, length, limit: limit).flatMap { bytes in
            isValidUTF8(bytes) ? .success(bytes) : .failure(StatusError(JWTK_E_UTF8))
        }
    }

    /// RFC 3629 UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF); allocates nothing. The
    /// standard library's validating decoder, which accepts exactly what the core's JSON parser does in
    /// strings (JSONParser.parseUTF8Sequence; a test compares the two), rather than a third copy.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        while i < bytes.count, bytes[i] < 0x80 { i += 1 }  // names are ASCII in practice
        guard i < bytes.count else { return true }
        var rest = UnsafeRawBufferPointer(rebasing: bytes[i...]).makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        while true {
            switch parser.parseScalar(from: &rest) {
            case .valid: continue
            case .emptyInput: return true
            case .error: return false
            }
        }
    }
}

/// A status code as a Swift error, for the cold paths (config, key loading) that propagate one.
struct StatusError: Error {
    let status: Int32
    let message: String?
    init(_ status: Int32, _ message: String? = nil) {
        self.status = status
        self.message = message
    }
}
