#if canImport(Glibc)
import Glibc
#endif

/// Numeric values of validated JSON numbers, for NumericDate claims.
enum JSONNumber {
    /// The value of a number span `JSONParser` produced. Integers of up to 15
    /// digits (every realistic timestamp) convert exactly without libc; the
    /// rest go through `strtod`, which is correctly rounded.
    static func double(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Double {
        var i = span.start
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        var value: Int64 = 0
        var digits = 0
        while i < span.end, bytes[i] &- UInt8(ascii: "0") < 10, digits < 15 {
            value = value * 10 + Int64(bytes[i] &- UInt8(ascii: "0"))
            digits += 1
            i += 1
        }
        if i == span.end { return Double(negative ? -value : value) }
        return withUnsafeTemporaryAllocation(of: CChar.self, capacity: span.count + 1) { text in
            for k in 0..<span.count { text[k] = CChar(bitPattern: bytes[span.start + k]) }
            text[span.count] = 0
            return strtod(text.baseAddress!, nil)
        }
    }
}
