/// A NumericDate (RFC 7519 §2: a JSON number, fractions allowed) in whole seconds, exactly: the largest
/// integer not above it and whether it has a fraction, read from the number's digits (`JSONDecimal`),
/// not from a Double, which rounds `100.99999999999999999` up to 101.
///
/// The time checks compare the caller's `now`, whole seconds (a clock's seconds, `jwtk_verify`'s `now`),
/// against these, rounding every fraction toward refusal: `now` stands for any instant of its second,
/// so `exp` counts from its floor (`exp: 100.5` is expired at `now` 100, where the real time may be
/// 100.7), `nbf` and a future `iat` from their ceiling (`nbf: 100.5` is not yet valid at 100), and a
/// maximum age from `iat`'s floor. Integers compare exactly as before; the leeway applies as before.
@_spi(Internals)
public struct NumericDateBounds: Sendable, Equatable {
    /// Rounded down, clamped to `Int64`.
    public let floor: Int64
    public let fractional: Bool

    /// Rounded up, clamped to `Int64`.
    @inline(__always)
    public var ceiling: Int64 { fractional && floor != .max ? floor + 1 : floor }

    static let zero = NumericDateBounds(floor: 0, fractional: false)
}

extension Int64 {
    /// `self + other`, clamped at the bounds (a date near `Int64.max` plus the leeway).
    @inline(__always)
    func clampedAdding(_ other: Int64) -> Int64 {
        let (sum, overflow) = addingReportingOverflow(other)
        return overflow ? (other > 0 ? .max : .min) : sum
    }
}
