public import NIOCore

/// gRPC's length-prefixed message on HTTP/2 (the gRPC HTTP/2 protocol's `Length-Prefixed-Message`): one byte
/// compressed-flag, a 4-byte big-endian length, then the message. A unary call's request body is exactly one; the
/// message itself is decoded by swift-protobuf's generated code, never here.
public enum GRPCMessageFrame {
    /// The one message of a unary request body. Anything else (no frame, a short or trailing frame, a second
    /// message, a compressed one, one longer than `limit`) is a gRPC error status, never a guess.
    public static func message(in body: ByteBuffer, limit: Int) throws(GRPCStatus) -> ByteBuffer {
        var body = body
        guard let flag = body.readInteger(as: UInt8.self), let length = body.readInteger(as: UInt32.self) else {
            throw .invalidArgument("expected one length-prefixed message")
        }
        switch flag {
        case 0: break
        case 1: throw .unimplemented("compressed messages are not accepted (no grpc-accept-encoding)")
        default: throw .invalidArgument("bad compressed-flag byte")
        }
        guard Int(length) <= limit else { throw .resourceExhausted("message larger than \(limit) bytes") }
        guard let message = body.readSlice(length: Int(length)) else {
            throw .invalidArgument("message shorter than its length prefix")
        }
        guard body.readableBytes == 0 else { throw .invalidArgument("a unary call carries one message") }
        return message
    }

    /// `message` behind its prefix (uncompressed).
    public static func framed(_ message: some Collection<UInt8>) -> ByteBuffer {
        var out = ByteBuffer()
        out.reserveCapacity(5 + message.count)
        out.writeInteger(UInt8(0))
        out.writeInteger(UInt32(message.count))
        out.writeBytes(message)
        return out
    }
}
