/// A verified JWS whose payload need not be JSON (RFC 7515 without RFC 7519).
public struct VerifiedJWS: Sendable {
    public let algorithm: JWTAlgorithm
    public let kid: String?
    public let key: VerificationKey
    public let header: [UInt8]
    public let payload: [UInt8]
}
