public import JWTKernel

/// Verification results by issuer and `JWTErrorCode`, counted on the verifying thread with one relaxed
/// atomic add into a table made once (no allocation, no lock); `KeyRefresherService` reads the table on its
/// own task and reports the deltas to swift-metrics (`jwtk_verifications_total{issuer,result}`).
///
/// An accepted token is counted under its `iss` when that is one of `issuers` (a dictionary lookup that
/// hashes the string in place), else under `other`. A refused token's issuer is not known to the caller
/// (`JWTError` does not carry it: reading it would mean a second parse), so refusals are counted under
/// `issuer` `rejected` by code, unless the caller names the issuer (`count(_:issuer:)`).
public final class VerificationCounters: Sendable {
    /// The issuers counted by name, in order; then `other` and `rejected`.
    public let issuers: [String]
    private let index: [String: Int]
    /// Row per issuer label, column 0 for `ok`, then one per error code number.
    private let cells: [AtomicCounter]
    private let columns: Int

    /// The labels of the rows after `issuers`.
    public static let otherIssuer = "other"
    public static let rejectedIssuer = "rejected"

    public init(issuers: [String]) {
        var unique: [String] = []
        for issuer in issuers where !unique.contains(issuer) { unique.append(issuer) }
        self.issuers = unique
        var index: [String: Int] = [:]
        for (i, issuer) in unique.enumerated() { index[issuer] = i }
        self.index = index
        self.columns = Int(JWTErrorCode.allCases.map(\.number).max() ?? 0) + 1
        self.cells = (0..<(unique.count + 2) * columns).map { _ in AtomicCounter() }
    }

    /// One row per exact issuer of `verifier` (a template's tenants count as `other`).
    public convenience init(for verifier: MultiIssuerVerifier) {
        self.init(issuers: verifier.issuers.filter { !$0.isTemplate }.map(\.issuer))
    }

    @inline(__always)
    private func row(_ issuer: String?) -> Int {
        guard let issuer else { return issuers.count + 1 }
        return index[issuer] ?? issuers.count
    }

    /// Counts an accepted token.
    @inline(__always)
    public func count(_ verified: VerifiedJWT) { cells[row(verified.issuer) * columns].increment() }

    /// Counts a refusal, under `issuer` if the caller knows it (else `rejected`).
    @inline(__always)
    public func count(_ error: JWTError, issuer: String? = nil) {
        let column = Int(error.code.number)
        guard column > 0, column < columns else { return }
        cells[row(issuer) * columns + column].increment()
    }

    /// `verifier.verify(token)`, counted.
    public func verify(_ token: String, with verifier: MultiIssuerVerifier) throws(JWTError) -> VerifiedJWT {
        do {
            let verified = try verifier.verify(token)
            count(verified)
            return verified
        } catch {
            count(error)
            throw error
        }
    }

    /// `verifier.verify(token, as: type)`, counted (a token whose claims do not fit `T` counts as accepted:
    /// it was).
    public func verify<T: Decodable>(_ token: String, as type: T.Type, with verifier: MultiIssuerVerifier) throws -> T {
        try verify(token, with: verifier).decode(type)
    }

    /// Every nonzero cell: issuer label, `ok` or the error code's name, count so far.
    public func snapshot() -> [(issuer: String, result: String, count: Int)] {
        var out: [(issuer: String, result: String, count: Int)] = []
        let labels = issuers + [Self.otherIssuer, Self.rejectedIssuer]
        for (r, label) in labels.enumerated() {
            for column in 0..<columns {
                let n = cells[r * columns + column].current
                guard n > 0 else { continue }
                let result = column == 0 ? "ok" : (JWTErrorCode(number: Int32(column))?.name ?? "code_\(column)")
                out.append((label, result, n))
            }
        }
        return out
    }
}
