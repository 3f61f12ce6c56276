@_spi(Internals) import JWTKernel

/// Each step of `JWTVerifier`'s pipeline, runnable on its own over one token,
/// so the benchmarks can show where a token's time goes (docs/ARCHITECTURE.md,
/// "The hot path"). Benchmark code, so it lives here, outside the product; it calls the pipeline's own
/// steps through the core's `Internals` SPI, which change whenever the pipeline does.
struct PipelineStages {
    enum Stage: String, CaseIterable, Sendable {
        case base64Header = "base64url header", base64Payload = "base64url payload"
        case base64Signature = "base64url signature", headerJSON = "header JSON", keyLookup = "key lookup"
        case signature = "MAC/signature", claimsJSON = "claims JSON", policy = "policy"
    }

    private let verifier: JWTVerifier
    private let token: [UInt8]
    private let jws: (header: Range<Int>, payload: Range<Int>, signature: Range<Int>)
    private let header: [UInt8], payload: [UInt8], signature: [UInt8]
    private let alg: JWTAlgorithm
    private let key: VerificationKey
    private let contexts = PKeyContextCache()

    /// Decodes `token` once (it must verify under `verifier`), so each stage can run on its own inputs.
    init(verifier: JWTVerifier, token: [UInt8]) throws(JWTError) {
        guard token.withUnsafeBytes({ verifier.check($0) }) == nil,
            let dot1 = token.firstIndex(of: UInt8(ascii: ".")),
            let dot2 = token[(dot1 + 1)...].firstIndex(of: UInt8(ascii: "."))
        else { throw JWTError(.malformed, "the stages need a token that verifies") }
        self.verifier = verifier
        self.token = token
        jws = (0..<dot1, (dot1 + 1)..<dot2, (dot2 + 1)..<token.count)
        let decodedHeader = Self.decoded(token[jws.header])
        header = decodedHeader
        payload = Self.decoded(token[jws.payload])
        signature = Self.decoded(token[jws.signature])
        let parsed = try decodedHeader.withUnsafeBytes { raw in
            Result { () throws(JWTError) in try JOSEHeader.parse(raw) }
        }.get()
        let keys = verifier.keys, alg = parsed.alg
        self.alg = alg
        // The fixtures' kids are plain strings (no escapes), so the span's bytes are the kid.
        let kid = parsed.kid.map { span in Array(decodedHeader[span.start..<span.end]) }
        key = try kid.withUnsafeBytesOrNil { (raw) throws(JWTError) in try keys.select(kid: raw, alg: alg) }
    }

    /// Runs `stage` `n` times; returns a value that depends on the work (for a black hole).
    func run(_ stage: Stage, _ n: Int) -> Int {
        var sink = 0
        token.withUnsafeBytes { t in
            let scratch = UnsafeMutableRawPointer.allocate(byteCount: t.count, alignment: 16)
            defer { scratch.deallocate() }
            func decode(_ range: Range<Int>) -> Int {
                Base64URL.decode(UnsafeRawBufferPointer(rebasing: t[range]), into: scratch) ?? 0
            }
            switch stage {
            case .base64Header: for _ in 0..<n { sink &+= decode(jws.header) }
            case .base64Payload: for _ in 0..<n { sink &+= decode(jws.payload) }
            case .base64Signature: for _ in 0..<n { sink &+= decode(jws.signature) }
            case .headerJSON:
                header.withUnsafeBytes { h in
                    for _ in 0..<n { sink &+= ((try? JOSEHeader.parse(h))?.alg.hashLength ?? 0) }
                }
            case .keyLookup:
                let kid = key.kidBytes
                kid.withUnsafeBytes { k in
                    for _ in 0..<n {
                        sink &+= ((try? verifier.keys.select(kid: key.kid == nil ? nil : k, alg: alg)) != nil ? 1 : 0)
                    }
                }
            case .signature:
                signature.withUnsafeBytes { s in
                    let input = UnsafeRawBufferPointer(rebasing: t[0..<jws.payload.upperBound])
                    for _ in 0..<n {
                        sink &+=
                            SignatureCheck.verify(alg, key: key, signingInput: input, signature: s, contexts: contexts)
                            ? 1 : 0
                    }
                }
            case .claimsJSON:
                payload.withUnsafeBytes { p in
                    for _ in 0..<n { sink &+= ((try? claims(p))?.exp != nil ? 1 : 0) }
                }
            case .policy:
                payload.withUnsafeBytes { p in
                    guard let c = try? claims(p) else { return }
                    for _ in 0..<n {
                        sink &+= (try? verifier.compiled.check(c, in: p, now: verifier.clock.now())) != nil ? 1 : 0
                    }
                }
            }
        }
        return sink
    }

    private static func decoded(_ segment: ArraySlice<UInt8>) -> [UInt8] {
        Base64URL.decode(String(decoding: segment, as: UTF8.self)) ?? []
    }

    private func claims(_ p: UnsafeRawBufferPointer) throws(JWTError) -> RegisteredClaims {
        try RegisteredClaims.read(
            p, required: verifier.compiled.requiredKeys, requiredNames: verifier.compiled.requiredClaims)
    }
}

extension Optional where Wrapped == [UInt8] {
    fileprivate func withUnsafeBytesOrNil<R>(
        _ body: (UnsafeRawBufferPointer?) throws(JWTError) -> R
    ) throws(JWTError) -> R {
        guard let bytes = self else { return try body(nil) }
        return try bytes.withUnsafeBytes { raw in Result { () throws(JWTError) in try body(raw) } }.get()
    }
}
