/// Numeric values of validated JSON numbers, for NumericDate claims.
enum JSONNumber {
    /// The value of a number span `JSONParser` produced. Integers of up to 15
    /// digits (every realistic timestamp) convert exactly on the fast path.
    @inline(__always)
    static func double(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Double {
        if let v = smallInteger(span, in: bytes) { return Double(v) }
        return parsed(span, in: bytes)
    }

    /// A NumericDate's value and its exact whole-second bounds; the common integer timestamp takes the
    /// fast path (exact in both), anything else reads the digits once more for the bounds.
    @inline(__always)
    static func date(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> (Double, NumericDateBounds) {
        if let v = smallInteger(span, in: bytes) { return (Double(v), NumericDateBounds(floor: v, fractional: false)) }
        return datePreciseBounds(span, in: bytes)
    }

    /// The fast path of both: an integer of at most 15 digits (exact in an Int64 and in a Double, so no
    /// overflow checks), nil for anything else (a fraction, an exponent, more digits).
    @inline(__always)
    static func smallInteger(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Int64? {
        var i = span.start
        let end = span.end
        let negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        guard end - i <= 15 else { return nil }
        var value: Int64 = 0
        while i < end {
            let d = bytes[i] &- UInt8(ascii: "0")
            guard d < 10 else { return nil }
            value = value &* 10 &+ Int64(d)
            i += 1
        }
        return negative ? -value : value
    }

    @inline(never)
    static func datePreciseBounds(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> (Double, NumericDateBounds) {
        let (floor, fractional) = JSONDecimal(bytes, start: span.start, end: span.end).floorAndFraction(bytes)
        return (parsed(span, in: bytes), NumericDateBounds(floor: floor, fractional: fractional))
    }

    /// Fractions, exponents and long integers: Swift's parser is correctly rounded and, unlike
    /// strtod, ignores the C locale (a comma-decimal locale must not turn 1.8e9 into 1).
    @inline(never)
    static func parsed(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Double {
        let text = String(decoding: UnsafeBufferPointer(start: bytes + span.start, count: span.count), as: UTF8.self)
        return Double(text) ?? .nan
    }
}
