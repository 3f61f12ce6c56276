internal import COpenSSL

/// Secret bytes (a symmetric decryption key, a content-encryption key) in memory this object owns and wipes
/// with `OPENSSL_cleanse` when released, so a key outlives no use of it in freed heap memory.
// Safety: @unchecked because of the raw buffer; it is written only in init and deinit.
final class SecretBytes: @unchecked Sendable {
    private let storage: UnsafeMutableRawBufferPointer
    let count: Int

    init(_ bytes: some Collection<UInt8>) {
        count = bytes.count
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        storage.copyBytes(from: bytes)
    }

    /// `count` random bytes from OpenSSL's CSPRNG; nil if the generator fails.
    init?(random count: Int) {
        self.count = count
        storage = .allocate(byteCount: max(count, 1), alignment: 16)
        guard RAND_bytes(storage.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1 else {
            storage.deallocate()
            return nil
        }
    }

    deinit {
        OPENSSL_cleanse(storage.baseAddress, storage.count)
        storage.deallocate()
    }

    func withBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        try body(UnsafeRawBufferPointer(start: storage.baseAddress, count: count))
    }

    /// The bytes from `range` (CBC-HMAC splits its key into a MAC half and an encryption half).
    func withBytes<R>(in range: Range<Int>, _ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        precondition(range.lowerBound >= 0 && range.upperBound <= count)
        return try body(UnsafeRawBufferPointer(start: storage.baseAddress! + range.lowerBound, count: range.count))
    }

    /// Same bytes, compared in constant time.
    func hasSameBytes(as other: SecretBytes) -> Bool {
        count == other.count && CRYPTO_memcmp(storage.baseAddress, other.storage.baseAddress, count) == 0
    }
}

/// Overwrites a secret held in an array before it is released (`OPENSSL_cleanse`, which the optimiser keeps).
func wipe(_ bytes: inout [UInt8]) {
    let count = bytes.count
    bytes.withUnsafeMutableBytes { OPENSSL_cleanse($0.baseAddress, count) }
}
