public import HTTPTypes

/// A gRPC status as it ends a call: the `grpc-status` trailer (and `grpc-message`, percent-encoded as the gRPC
/// HTTP/2 protocol says). Only the codes the agent answers with are named.
public struct GRPCStatus: Error, Equatable, Sendable {
    public var code: Int
    public var message: String

    public init(_ code: Int, _ message: String = "") {
        self.code = code
        self.message = message
    }

    public static let ok = GRPCStatus(0)
    /// A request that is not one CheckRequest (bad framing, bytes that are not the message).
    public static func invalidArgument(_ message: String) -> GRPCStatus { GRPCStatus(3, message) }
    /// A request larger than the agent reads (`ExtAuthzRoute.maxMessageBytes`).
    public static func resourceExhausted(_ message: String) -> GRPCStatus { GRPCStatus(8, message) }
    /// A method other than Check, or a compressed message (the agent announces no `grpc-accept-encoding`).
    public static func unimplemented(_ message: String) -> GRPCStatus { GRPCStatus(12, message) }

    /// The trailers that end the call.
    public var trailers: HTTPFields {
        var fields = HTTPFields()
        fields[GRPCStatus.statusName] = String(code)
        if !message.isEmpty { fields[GRPCStatus.messageName] = Self.percentEncoded(message) }
        return fields
    }

    static let statusName = HTTPField.Name("grpc-status")!
    static let messageName = HTTPField.Name("grpc-message")!

    /// grpc-message: bytes outside printable ASCII, and "%", as %XX.
    static func percentEncoded(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            if byte >= 0x20, byte <= 0x7E, byte != UInt8(ascii: "%") {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
