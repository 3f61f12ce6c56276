/// The JWS algorithms the kernel verifies (RFC 7518 §3, RFC 8037, RFC 9864).
/// `none` is deliberately absent: there is no way to ask for it.
public enum JWTAlgorithm: String, CaseIterable, Sendable {
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    case rs256 = "RS256", rs384 = "RS384", rs512 = "RS512"
    case ps256 = "PS256", ps384 = "PS384", ps512 = "PS512"
    case es256 = "ES256", es384 = "ES384", es512 = "ES512", es256k = "ES256K"
    /// RFC 8037's polymorphic name: Ed25519 or Ed448, decided by the key.
    case edDSA = "EdDSA"
    /// RFC 9864 fully-specified names.
    case ed25519 = "Ed25519", ed448 = "Ed448"

    public enum Family: Sendable { case hmac, rsaPKCS1, rsaPSS, ecdsa, eddsa }

    public var family: Family {
        switch self {
        case .hs256, .hs384, .hs512: .hmac
        case .rs256, .rs384, .rs512: .rsaPKCS1
        case .ps256, .ps384, .ps512: .rsaPSS
        case .es256, .es384, .es512, .es256k: .ecdsa
        case .edDSA, .ed25519, .ed448: .eddsa
        }
    }

    /// Output size of the hash the algorithm is built on (HMAC tag length, PSS salt length).
    public var hashLength: Int {
        switch self {
        case .hs256, .rs256, .ps256, .es256, .es256k: 32
        case .hs384, .rs384, .ps384, .es384: 48
        case .hs512, .rs512, .ps512, .es512: 64
        case .edDSA, .ed25519, .ed448: 0
        }
    }

    /// The bit of this algorithm in an `AlgorithmSet`.
    @inlinable public var bit: UInt32 {
        switch self {
        case .hs256: 1 << 0
        case .hs384: 1 << 1
        case .hs512: 1 << 2
        case .rs256: 1 << 3
        case .rs384: 1 << 4
        case .rs512: 1 << 5
        case .ps256: 1 << 6
        case .ps384: 1 << 7
        case .ps512: 1 << 8
        case .es256: 1 << 9
        case .es384: 1 << 10
        case .es512: 1 << 11
        case .es256k: 1 << 12
        case .edDSA: 1 << 13
        case .ed25519: 1 << 14
        case .ed448: 1 << 15
        }
    }

    /// Parses a header `alg` value without allocating. Case-sensitive, as RFC 7515 requires.
    static func parse(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> JWTAlgorithm? {
        guard let packed = packName(span, in: bytes) else { return nil }
        for (code, alg) in packedNames where code == packed { return alg }
        return nil
    }

    /// True for any spelling of `none`, so the error can say so plainly.
    static func isNone(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> Bool {
        guard let packed = packName(span, in: bytes) else { return false }
        return packed | 0x2020_2020 == 0x0400_0000_656e_6f6e   // "none" little-endian, case-folded, length 4
    }

    /// Up to 7 decoded bytes packed little-endian with the length in the top
    /// byte (so "HS256\u0000" is not "HS256"); nil for longer names (no algorithm is).
    private static func packName(_ span: JSONSpan, in bytes: UnsafePointer<UInt8>) -> UInt64? {
        var it = JSONStringDecoder(span, in: bytes)
        var packed: UInt64 = 0
        var n: UInt64 = 0
        while let b = it.next() {
            guard n < 7 else { return nil }
            packed |= UInt64(b) << (8 * n)
            n += 1
        }
        return packed | n << 56
    }

    private static let packedNames: [(UInt64, JWTAlgorithm)] = allCases.map { alg in
        var packed: UInt64 = 0
        for (i, b) in alg.rawValue.utf8.enumerated() { packed |= UInt64(b) << (8 * UInt64(i)) }
        return (packed | UInt64(alg.rawValue.utf8.count) << 56, alg)
    }
}

/// A set of algorithms as a bit mask, so the per-token "may this key verify
/// this alg" and "does the policy allow it" checks are one AND each.
public struct AlgorithmSet: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public init(_ algorithms: some Sequence<JWTAlgorithm>) {
        self.init(rawValue: algorithms.reduce(0) { $0 | $1.bit })
    }

    @inlinable public func contains(_ alg: JWTAlgorithm) -> Bool { rawValue & alg.bit != 0 }

    public static let all = AlgorithmSet(JWTAlgorithm.allCases)
    public static let hmac = AlgorithmSet([.hs256, .hs384, .hs512])
    public static let rsa = AlgorithmSet([.rs256, .rs384, .rs512, .ps256, .ps384, .ps512])

    public var algorithms: [JWTAlgorithm] { JWTAlgorithm.allCases.filter { contains($0) } }
}
