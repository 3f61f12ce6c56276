#if canImport(Glibc)
import Glibc
#endif

/// The last JOSE header this thread parsed successfully, keyed by its exact base64url
/// text: a service sees the same few headers over and over (one per signing key), so
/// a token whose header segment is byte-identical to the previous one's takes the
/// decoded bytes and the parse from here (one compare and one copy) instead of
/// decoding and parsing them again.
///
/// Why it cannot change a verdict: decoding and `JOSEHeader.parse` are pure functions
/// of the segment's bytes, the key is the whole segment compared byte for byte, and
/// only successful parses are remembered (a header that fails is parsed, and fails,
/// every time). Everything after the parse (alg allowed, typ, key, signature) runs for
/// every token. Per thread (in `ThreadScratch`), so nothing is shared; a nested
/// verification may replace it only after the outer one has copied what it needs.
/// `HeaderMemoTests` alternates headers that differ in one byte.
// Safety: every field lives in `storage`, which this object allocates, owns and frees; one thread uses it.
final class HeaderMemo {
    /// Longer header segments are not remembered (common ones are 36-120 characters).
    static let maxText = 128
    private static let maxDecoded = 96
    /// text (maxText) ++ decoded (maxDecoded) ++ text count ++ decoded count ++ the parsed header.
    private let storage: UnsafeMutableRawPointer
    private let counts: UnsafeMutablePointer<Int>
    private let header: UnsafeMutablePointer<JOSEHeader>

    init() {
        storage = .allocate(byteCount: Self.maxText + Self.maxDecoded, alignment: 16)
        counts = .allocate(capacity: 2)
        counts.initialize(repeating: -1, count: 2)
        header = .allocate(capacity: 1)
        header.initialize(to: JOSEHeader(alg: .hs256, kid: nil, typ: nil))
    }

    deinit {
        storage.deallocate()
        counts.deallocate()
        header.deallocate()
    }

    /// The remembered parse if `text` is the remembered segment, its decoded bytes copied to
    /// `decoded` (which holds `Base64URL.decodedCount(text.count)` bytes); nil otherwise.
    @inline(__always)
    func recall(_ text: UnsafeRawBufferPointer, into decoded: UnsafeMutableRawPointer) -> JOSEHeader? {
        guard text.count == counts[0], let base = text.baseAddress, memcmp(storage, base, text.count) == 0 else {
            return nil
        }
        decoded.copyMemory(from: storage + Self.maxText, byteCount: counts[1])
        return header.pointee
    }

    /// Remembers a successful parse of `text`, decoded to `decoded`.
    @inline(__always)
    func remember(_ text: UnsafeRawBufferPointer, decoded: UnsafeRawBufferPointer, _ parsed: JOSEHeader) {
        guard text.count <= Self.maxText, decoded.count <= Self.maxDecoded, let t = text.baseAddress,
            let d = decoded.baseAddress
        else { return }
        storage.copyMemory(from: t, byteCount: text.count)
        (storage + Self.maxText).copyMemory(from: d, byteCount: decoded.count)
        counts[0] = text.count
        counts[1] = decoded.count
        header.pointee = parsed
    }
}
