/// Numeric values of validated JSON numbers, for NumericDate claims.
enum JSONNumber {
    /// The value of a number span `JSONParser` produced. Integers of up to 15
    /// digits (every realistic timestamp) convert exactly on the fast path.
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
        // Swift's parser is correctly rounded and, unlike strtod, ignores the C locale
        // (a comma-decimal locale must not turn 1.8e9 into 1).
        let text = String(decoding: UnsafeBufferPointer(start: bytes + span.start, count: span.count), as: UTF8.self)
        return Double(text) ?? .nan
    }
}
