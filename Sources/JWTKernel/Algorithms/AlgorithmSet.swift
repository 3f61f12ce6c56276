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
