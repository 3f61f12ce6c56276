internal import CXXHash

/// An issuer name prepared for lookup: its bytes and their XXH3 hash, computed once.
public struct IssuerID: Sendable, Hashable, CustomStringConvertible {
    public let name: String
    let bytes: [UInt8]
    let hash: UInt64

    public init(_ name: String) {
        self.name = name
        self.bytes = Array(name.utf8)
        self.hash = bytes.withUnsafeBytes { XXH3_64bits($0.baseAddress, $0.count) }
    }

    @inline(__always)
    func matches(hash: UInt64, _ other: UnsafeRawBufferPointer) -> Bool {
        self.hash == hash && bytes.count == other.count && bytes.withUnsafeBytes { $0.elementsEqual(other) }
    }

    public static func == (a: IssuerID, b: IssuerID) -> Bool { a.hash == b.hash && a.bytes == b.bytes }
    public func hash(into hasher: inout Hasher) { hasher.combine(hash) }
    public var description: String { name }
}
