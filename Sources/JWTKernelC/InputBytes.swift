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

    /// RFC 3629 UTF-8 (no overlongs, no surrogates, nothing above U+10FFFF); allocates nothing.
    static func isValidUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var i = 0
        let n = bytes.count
        while i < n {
            let b0 = bytes[i]
            if b0 < 0x80 { i += 1; continue }
            var need = 0
            var lo: UInt8 = 0x80, hi: UInt8 = 0xBF
            switch b0 {
            case 0xC2...0xDF: need = 1
            case 0xE0: need = 2; lo = 0xA0
            case 0xE1...0xEC, 0xEE...0xEF: need = 2
            case 0xED: need = 2; hi = 0x9F
            case 0xF0: need = 3; lo = 0x90
            case 0xF1...0xF3: need = 3
            case 0xF4: need = 3; hi = 0x8F
            default: return false
            }
            guard i + need < n, bytes[i + 1] >= lo, bytes[i + 1] <= hi else { return false }
            var k = 2
            while k <= need {
                guard bytes[i + k] & 0xC0 == 0x80 else { return false }
                k += 1
            }
            i += need + 1
        }
        return true
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
