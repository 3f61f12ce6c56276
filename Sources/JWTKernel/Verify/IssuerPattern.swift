/// How a route recognizes a token's `iss`: one exact value, or a template
/// `prefix{tenantid}suffix` whose middle must equal the token's `tid` claim.
enum IssuerPattern: Sendable {
    case exact([UInt8])
    case template(prefix: [UInt8], suffix: [UInt8])

    init(_ issuer: String) {
        let bytes = Array(issuer.utf8)
        let placeholder = Array(IssuerConfiguration.tenantPlaceholder.utf8)
        guard let at = Self.firstIndex(of: placeholder, in: bytes) else {
            self = .exact(bytes)
            return
        }
        self = .template(prefix: Array(bytes[..<at]), suffix: Array(bytes[(at + placeholder.count)...]))
    }

    /// Longest `iss` a template route decodes (on the stack) to compare.
    static let maxTemplatedIssuerLength = 512
    /// Longest `tid` accepted in a template (Microsoft's are 36-character GUIDs).
    static let maxTenantLength = 64

    /// `iss` (decoded) against this pattern; `tid` is the decoded `tid` claim, if any.
    func matches(iss: UnsafeRawBufferPointer, tid: UnsafeRawBufferPointer?) -> Bool {
        switch self {
        case .exact(let value):
            return value.count == iss.count && value.withUnsafeBytes { $0.elementsEqual(iss) }
        case .template(let prefix, let suffix):
            guard let tid, !tid.isEmpty, tid.count <= Self.maxTenantLength,
                // A tenant ID is a GUID or a domain label: never a path, a query or a space.
                tid.allSatisfy({ Self.isTenantByte($0) }),
                iss.count == prefix.count + tid.count + suffix.count
            else { return false }
            let p = UnsafeRawBufferPointer(rebasing: iss[0..<prefix.count])
            let m = UnsafeRawBufferPointer(rebasing: iss[prefix.count..<(prefix.count + tid.count)])
            let s = UnsafeRawBufferPointer(rebasing: iss[(prefix.count + tid.count)...])
            return prefix.withUnsafeBytes { $0.elementsEqual(p) } && m.elementsEqual(tid)
                && suffix.withUnsafeBytes { $0.elementsEqual(s) }
        }
    }

    var isTemplate: Bool { if case .template = self { true } else { false } }

    private static func isTenantByte(_ b: UInt8) -> Bool {
        (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5A) || (b >= 0x61 && b <= 0x7A) || b == 0x2D || b == 0x2E
    }

    private static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard !needle.isEmpty, haystack.count >= needle.count else { return nil }
        for i in 0...(haystack.count - needle.count) where haystack[i..<(i + needle.count)].elementsEqual(needle) {
            return i
        }
        return nil
    }
}
