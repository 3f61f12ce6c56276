/// A configuration that cannot be used: the message names the entry and member at fault
/// (`issuer #2: unknown member "jwks"`), so an operator can fix the file without guessing.
public struct IssuerConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}
