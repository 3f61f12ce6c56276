/// The exact value of a validated JSON number as sign, significant digits and a power of ten, read in
/// place: nothing is copied or converted. Claim requirements compare numbers with it, so that `1`,
/// `1.0` and `10e-1` are equal (RFC 8259 has one number type) while `9007199254740993` and
/// `9007199254740992` stay different, as a Double would not keep them.
struct JSONDecimal {
    let negative: Bool
    /// Positions of the first and last non-zero digit (significant digits lie between them).
    let first: Int
    let last: Int
    /// Position of the ".", or -1: a walk from `first` to `last` steps over it.
    let point: Int
    /// Significant digits; 0 for zero, whatever its spelling (`0`, `-0.0`, `0e5`).
    let digits: Int
    /// The value is 0.d1d2...dn x 10^exponent. An exponent written with more digits than any real one
    /// saturates at +-2^40: still far from every value a requirement can hold, so never equal to one.
    let exponent: Int

    var isZero: Bool { digits == 0 }

    /// `bytes[start..<end]` must be a number `JSONParser` accepted (RFC 8259's grammar).
    init(_ bytes: UnsafePointer<UInt8>, start: Int, end: Int) {
        var i = start
        negative = bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let intStart = i
        while i < end, Self.isDigit(bytes[i]) { i += 1 }
        let intEnd = i
        var fracStart = i, fracEnd = i, point = -1
        if i < end, bytes[i] == UInt8(ascii: ".") {
            point = i
            i += 1
            fracStart = i
            while i < end, Self.isDigit(bytes[i]) { i += 1 }
            fracEnd = i
        }
        var written = 0
        if i < end {  // "e" or "E"
            i += 1
            var sign = 1
            if bytes[i] == UInt8(ascii: "-") { sign = -1; i += 1 } else if bytes[i] == UInt8(ascii: "+") { i += 1 }
            let limit = 1 << 40
            while i < end {
                written = min(limit, written * 10 + Int(bytes[i] &- UInt8(ascii: "0")))
                i += 1
            }
            written *= sign
        }
        self.point = point
        // The first non-zero digit, in the integer part or else in the fraction.
        var f = intStart
        while f < intEnd, bytes[f] == UInt8(ascii: "0") { f += 1 }
        if f == intEnd {
            f = fracStart
            while f < fracEnd, bytes[f] == UInt8(ascii: "0") { f += 1 }
            if f == fracEnd {
                first = 0; last = -1; digits = 0; exponent = 0
                return
            }
        }
        // The last non-zero digit, in the fraction or else in the integer part (one exists: `f` found it).
        var l = fracEnd - 1
        while l >= fracStart, bytes[l] == UInt8(ascii: "0") { l -= 1 }
        if l < fracStart {
            l = intEnd - 1
            while bytes[l] == UInt8(ascii: "0") { l -= 1 }
        }
        first = f
        last = l
        digits = (f < point && l > point) ? l - f : l - f + 1
        // 0.d1... scaled: integer digits from the first significant one, or the fraction's leading zeros.
        exponent = (f < intEnd ? intEnd - f : -(f - fracStart)) + written
    }

    /// Whether `a` (read from `aBytes`) and `b` (from `bBytes`) are the same number.
    static func equal(
        _ a: JSONDecimal, _ aBytes: UnsafePointer<UInt8>, _ b: JSONDecimal, _ bBytes: UnsafePointer<UInt8>
    ) -> Bool {
        guard a.digits == b.digits else { return false }
        if a.isZero { return true }  // -0 == 0
        guard a.negative == b.negative, a.exponent == b.exponent else { return false }
        var i = a.first, j = b.first
        for _ in 0..<a.digits {
            if i == a.point { i += 1 }
            if j == b.point { j += 1 }
            guard aBytes[i] == bBytes[j] else { return false }
            i += 1
            j += 1
        }
        return true
    }

    @inline(__always)
    static func isDigit(_ b: UInt8) -> Bool { b &- UInt8(ascii: "0") < 10 }
}
