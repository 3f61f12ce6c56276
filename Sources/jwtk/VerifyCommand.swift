import ArgumentParser
import Foundation
@_spi(Internals) import JWTKernel

struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify",
        abstract: "Verify tokens; one JSON result per token per line on stdout.",
        discussion: """
            Tokens come from the arguments or, when there are none, from standard input, one per line:
            every input line gives one output line, in order (an empty line is a `malformed` token).
            Only the line ending (LF or CRLF) is removed; other whitespace is part of the token.
            Exit status: 0 every token valid, 1 any token invalid, 2 usage or configuration error.
            """
    )

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Key set file: JWKS, single JWK, {kid: PEM} map, or a PEM key/certificate. Repeatable. With --provider: its keys, offline.",
            valueName: "FILE"))
    var jwks: [String] = []

    @Flag(
        name: .long,
        help: ArgumentHelp(
            "Load --jwks HMAC secrets shorter than their hash output (RFC 7518 section 3.2 refuses them; NGINX Plus loads them), each with a warning."
        ))
    var allowShortHmacSecrets = false

    @OptionGroup var remote: RemoteKeyOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "JWE decryption key file: JWKS or JWK with private keys, or a PEM private key. Repeatable. Needs --token-type nested or encrypted.",
            valueName: "FILE"))
    var decryptionKeys: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp(
            "signed (default), nested (a JWS inside a JWE: decrypted, then verified) or encrypted (decrypted claims, policy checked; no signature).",
            valueName: "TYPE"))
    var tokenType: String = "signed"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Accepted issuer (exact match). Repeatable. Not given: iss is not checked.", valueName: "ISSUER"))
    var iss: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Accepted audience. Repeatable. Not given: aud is not checked.", valueName: "AUDIENCE"))
    var aud: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Allowed algorithm (e.g. RS256). Repeatable. Default: any the key allows.", valueName: "ALG")
    )
    var alg: [String] = []

    @Option(
        name: .long,
        help: ArgumentHelp("Clock skew tolerated on exp/nbf/iat, in seconds (0: none).", valueName: "SECONDS"))
    var leeway: Int64 = 60

    @Option(
        name: .long, help: ArgumentHelp("Verify as if the time were this Unix timestamp.", valueName: "UNIX_SECONDS"))
    var now: Int64?

    @Option(name: .long, help: ArgumentHelp("Claim that must be present. Repeatable.", valueName: "CLAIM"))
    var require: [String] = []

    @OptionGroup var claimRequirements: ClaimRequirementOptions

    @Option(name: .long, help: ArgumentHelp("Expected nonce claim.", valueName: "VALUE"))
    var nonce: String?

    @Option(name: .long, help: ArgumentHelp("Expected header typ (e.g. JWT).", valueName: "VALUE"))
    var typ: String?

    @Option(name: .long, help: ArgumentHelp("Largest token accepted, in bytes.", valueName: "BYTES"))
    var maxTokenSize: Int = JWTVerifier.defaultMaxTokenSize

    @Argument(help: ArgumentHelp("Tokens to verify. None: read standard input, one per line.", valueName: "TOKEN"))
    var tokens: [String] = []

    func validate() throws {
        guard let type = TokenType(rawValue: tokenType) else {
            throw ValidationError("--token-type must be signed, nested or encrypted")
        }
        guard (type == .signed) == decryptionKeys.isEmpty else {
            throw ValidationError(
                type == .signed
                    ? "--decryption-keys needs --token-type nested or encrypted"
                    : "--token-type \(tokenType) needs --decryption-keys FILE")
        }
        guard type == .encrypted || !jwks.isEmpty || remote.isConfigured else {
            throw ValidationError(
                "at least one --jwks FILE (or --provider, --jwks-url, --oidc, --issuer-config) is required")
        }
        try remote.validate(hasKeyFiles: !jwks.isEmpty, issuers: iss, audiences: aud)
        guard leeway >= 0 else { throw ValidationError("--leeway must be zero or more") }
        guard maxTokenSize > 0, maxTokenSize <= 1 << 30 else {
            throw ValidationError("--max-token-size must be between 1 and 1073741824")
        }
        guard require.count <= 64 else { throw ValidationError("at most 64 --require claims") }
    }

    func run() throws {
        let verifier: any TokenVerifier
        var decryption: (TokenType, JWEDecryptor)? = nil
        do {
            verifier = try makeVerifier()
            if let type = TokenType(rawValue: tokenType), type != .signed {
                decryption = (
                    type,
                    JWEDecryptor(keys: try KeySetFile.loadDecryptionKeys(decryptionKeys), maxTokenSize: maxTokenSize)
                )
            }
        } catch let error as ConfigurationError {
            CLIError.report(error)
            throw ExitCode(2)
        }
        let output = OutputWriter()
        var allValid = true
        let verifyOne = { (token: UnsafeRawBufferPointer) in
            allValid =
                ResultLine.write(verifier: verifier, token: token, decryption: decryption, to: output) && allValid
        }
        if tokens.isEmpty {
            LineReader(fd: 0, maxLineLength: verifier.maxTokenSize).forEachLine { line in
                switch line {
                case .line(let bytes): verifyOne(bytes)
                case .tooLong:
                    output.write(ResultLine.failure(JWTError(.tooLarge, "token exceeds the size limit")))
                    allValid = false
                }
            }
        } else {
            for var token in tokens {
                token.withUTF8 { verifyOne(UnsafeRawBufferPointer($0)) }
            }
        }
        output.flush()
        if !allValid { throw ExitCode(1) }
    }

    private func makeVerifier() throws -> any TokenVerifier {
        let keys = jwks.isEmpty ? nil : try KeySetFile.loadAll(jwks, allowShortHMACSecrets: allowShortHmacSecrets)
        var algorithms = AlgorithmSet.all
        if !alg.isEmpty {
            algorithms = []
            for name in alg {
                guard let a = JWTAlgorithm(rawValue: name) else {
                    throw ConfigurationError(
                        "--alg \(name): not an algorithm jwtk verifies (\(JWTAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")))"
                    )
                }
                algorithms.insert(AlgorithmSet([a]))
            }
        }
        let policy = ClaimsPolicy(
            algorithms: algorithms, issuers: iss, audiences: aud, leeway: leeway,
            requiredClaims: require, expectedType: typ, expectedNonce: nonce,
            claimRequirements: try claimRequirements.requirements())
        let clock: any JWTClock = now.map { FixedClock($0) } ?? SystemClock()
        if remote.isConfigured {
            return try remote.makeVerifier(base: policy, keyFiles: keys, clock: clock, maxTokenSize: maxTokenSize)
        }
        return JWTVerifier(keys: keys ?? JWKSet(keys: []), policy: policy, clock: clock, maxTokenSize: maxTokenSize)
    }
}
