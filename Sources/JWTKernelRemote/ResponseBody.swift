/// A response body as it arrives, capped: a chunk that would take it past `cap` is refused
/// (and the transfer abandoned, `too_large`). SPI for the fuzzer, which feeds it chunks.
@_spi(Fuzzing) public struct ResponseBody {
    public let cap: Int
    public private(set) var bytes: [UInt8] = []
    /// A chunk was refused: the body is incomplete.
    public private(set) var overflowed = false

    public init(cap: Int) { self.cap = max(0, cap) }

    /// Appends `chunk` if the body stays within `cap`; false (nothing appended) otherwise.
    public mutating func append(_ chunk: UnsafeRawBufferPointer) -> Bool {
        guard !overflowed, chunk.count <= cap - bytes.count else {
            overflowed = true
            return false
        }
        bytes.append(contentsOf: chunk)
        return true
    }
}
