/// An issuer as the key store indexes it: its exact bytes and a hash of them.
struct IssuerName: Hashable, Sendable {
    let bytes: [UInt8]
    let hash: UInt64

    init(_ bytes: UnsafeRawBufferPointer) {
        self.bytes = Array(bytes)
        self.hash = Self.hash(bytes)
    }

    init(_ name: String) {
        self.bytes = Array(name.utf8)
        self.hash = bytes.withUnsafeBytes { Self.hash($0) }
    }

    /// FNV-1a: issuer names are short, and this keeps the library's hot path free of another dependency.
    @inline(__always)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
        return h
    }

    @inline(__always)
    func equals(_ other: UnsafeRawBufferPointer) -> Bool {
        bytes.count == other.count && bytes.withUnsafeBytes { $0.elementsEqual(other) }
    }
}
