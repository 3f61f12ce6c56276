/// The JSON type of a validated value.
@_spi(Internals)
public enum JSONKind: UInt8, Sendable {
    case object, array, string, number, `true`, `false`, null
}
