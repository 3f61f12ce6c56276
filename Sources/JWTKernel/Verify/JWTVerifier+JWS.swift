/// JWS whose payload need not be JSON (RFC 7515 without RFC 7519).
extension JWTVerifier {
    /// Verifies the signature only: header, algorithm, key and signature.
    /// Claims are not read, so no time or audience checks happen here.
    public func verifyJWS(_ token: String) throws(JWTError) -> VerifiedJWS {
        try Self.withBytes(token) { (bytes) throws(JWTError) -> VerifiedJWS in
            var result: VerifiedJWS?
            try withVerifiedSignature(bytes) { (parts) throws(JWTError) in
                let kid = parts.header.kid.map {
                    JSONString.string($0, in: parts.headerJSON.baseAddress!.assumingMemoryBound(to: UInt8.self))
                }
                result = VerifiedJWS(
                    algorithm: parts.header.alg, kid: kid, key: parts.key,
                    header: Array(parts.headerJSON), payload: Array(parts.payload))
            }
            // withVerifiedSignature calls its body exactly once whenever it returns without throwing.
            return result!
        }
    }
}
