extension JSONDecimal {
    /// The largest integer not above the number, clamped to `Int64`, and whether the number has a
    /// non-zero fraction: exact from the digits, so `100.99999999999999999` (101.0 as a Double) is 100
    /// with a fraction. NumericDate checks compare these, never a rounded Double (`NumericDateBounds`).
    func floorAndFraction(_ bytes: UnsafePointer<UInt8>) -> (floor: Int64, fractional: Bool) {
        if isZero { return (0, false) }
        // 0.d1..dn x 10^exponent: the first `exponent` digits are the integer part.
        let intDigits = max(0, exponent)
        let fractional = digits > intDigits
        var magnitude: UInt64 = 0
        var saturated = intDigits > 19
        if !saturated {
            var i = first
            for _ in 0..<min(intDigits, digits) {
                if i == point { i += 1 }
                magnitude = magnitude * 10 + UInt64(bytes[i] &- UInt8(ascii: "0"))
                i += 1
            }
            // Trailing zeros of the integer part not written as digits (`1e3`, `12.5e2`).
            for _ in 0..<max(0, intDigits - digits) {
                let (m, overflow) = magnitude.multipliedReportingOverflow(by: 10)
                if overflow { saturated = true; break }
                magnitude = m
            }
        }
        if negative {
            if saturated || magnitude > UInt64(Int64.max) { return (.min, fractional) }
            let v = -Int64(magnitude)
            return (fractional ? (v == .min ? .min : v - 1) : v, fractional)
        }
        if saturated || magnitude > UInt64(Int64.max) { return (.max, fractional) }
        return (Int64(magnitude), fractional)
    }
}
