/// A JWT NumericDate (RFC 7519 section 2): seconds since 1970-01-01T00:00:00Z, UTC, leap seconds
/// ignored; an integer or a fraction. For typed claims (`exp`, `iat`, `auth_time`): Foundation's `Date`
/// decodes a number as seconds since 2001, so use this type (and `Date(timeIntervalSince1970:)`) instead.
public struct NumericDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var secondsSince1970: Double

    public init(secondsSince1970: Double) { self.secondsSince1970 = secondsSince1970 }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let seconds = try container.decode(Double.self)
        guard seconds.isFinite else {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "A NumericDate must be finite."))
        }
        secondsSince1970 = seconds
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(secondsSince1970)
    }

    public static func < (a: NumericDate, b: NumericDate) -> Bool { a.secondsSince1970 < b.secondsSince1970 }

    public var description: String { "\(secondsSince1970)" }
}
