/// Where a validated JSON value sits in its buffer. For strings, `start..<end`
/// is the content between the quotes, still escaped when `escaped` is true.
/// For every other kind it is the value's full text.
@_spi(Internals)
public struct JSONSpan: Sendable, Equatable {
    public var start: Int
    public var end: Int
    public var kind: JSONKind
    public var escaped: Bool

    @inlinable
    public init(start: Int, end: Int, kind: JSONKind, escaped: Bool = false) {
        self.start = start
        self.end = end
        self.kind = kind
        self.escaped = escaped
    }

    @inlinable public var count: Int { end - start }
}
