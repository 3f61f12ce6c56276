@_spi(Internals) import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// The object behind `jwtk_ctx`: one thread's result memory. Never shared by two threads at once
/// (the header's contract), so nothing here is locked.
///
/// After a successful verification the decoded header and claims JSON are either at the start of `arena`
/// (copied there) or in the cache entry `held` keeps (a cache hit: not copied; the entry is immutable and stays
/// held at least until the next call). `arena` holds behind the documents' room a "shadow" of the same size: a JSON string at
/// offset `o` of a document decodes into the shadow at offset `o` (a decoded string is never longer than its
/// escaped form), so every decoded value has its own place, several stay valid together, and nothing is
/// allocated per call.
/// Behind the shadow, a third copy of the same size takes jwtk_claim_at's joined arrays the same way
/// (an array at offset `o` joins into it at `o`): a string inside a joined array decodes into the
/// shadow at its own offset, so the joined text cannot share the shadow; and only arrays of scalars
/// join, so no two joined arrays nest and their regions never overlap.
final class ContextState {
    private(set) var arena: UnsafeMutableRawPointer
    private(set) var capacity: Int
    /// jwtk_ctx_errmsg's text, NUL-terminated.
    let message: UnsafeMutablePointer<CChar>
    static let messageCapacity = 512

    /// Where the last successful verification's documents sit in `arena` (nil: no verified token).
    var verified: VerifiedLayout?

    /// The cache entry the verified documents are in, after a cache hit (`CacheHold`; held until a later call
    /// replaces it or copies its documents into the arena, or the ctx is freed).
    let held: CacheHold

    /// The length of the inner JWS of the nested token last verified (jwtk_nested_jws), held in `arena` right
    /// behind the verified documents' regions (at `verified.total`); 0: the last token was not nested.
    var nestedCount = 0

    /// The routes (`MultiIssuerVerifier`) of the verifier used last (by serial) and the key generation they
    /// were built for.
    var routes: Routes?

    /// This context's row of every verifier's verdict counters, given back when it is freed.
    let counterStripe = CounterStripe.lend()

    // Safety: arena and message are owned here: allocated in init or reserve, freed in reserve or deinit.
    init() {
        capacity = 4096
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
        message = .allocate(capacity: Self.messageCapacity)
        message.initialize(repeating: 0, count: Self.messageCapacity)
        held = .allocate(capacity: 1)
        held.initialize(to: HeldCacheEntry())
    }

    deinit {
        counterStripe.giveBack()
        arena.deallocate()
        message.deallocate()
        held.deinitialize(count: 1)
        held.deallocate()
    }

    /// Makes room for `count` bytes; drops the verified documents if it has to move them. Inlined: every
    /// jwtk_verify asks, and the arena almost always has the room already.
    @inline(__always)
    func reserve(_ count: Int) {
        if count > capacity { grow(count) }
    }

    @inline(never)
    private func grow(_ count: Int) {
        verified = nil
        nestedCount = 0
        arena.deallocate()
        capacity = max(count, capacity * 2)
        arena = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    func setMessage(_ text: StaticString) {
        message[append(text.utf8Start, text.utf8CodeUnitCount, at: 0)] = 0
    }

    /// A verification's failure, as `JWTError.message` renders it, without allocating (the verify path):
    /// the failed requirement's label (`strlen` of its immortal C string), then the static detail.
    func setMessage(_ error: JWTError) {
        var n = 0
        if let label = error.requirement {
            let before: StaticString = "claim requirement ", after: StaticString = ": "
            n = append(before.utf8Start, before.utf8CodeUnitCount, at: n)
            n = label.cString.withMemoryRebound(to: UInt8.self, capacity: 1) {
                append($0, strlen(label.cString), at: n)
            }
            n = append(after.utf8Start, after.utf8CodeUnitCount, at: n)
        }
        message[append(error.detail.utf8Start, error.detail.utf8CodeUnitCount, at: n)] = 0
    }

    /// Copies up to `count` bytes to `message[at...]`, leaving room for the NUL; returns the new end.
    private func append(_ bytes: UnsafePointer<UInt8>, _ count: Int, at start: Int) -> Int {
        let n = min(count, Self.messageCapacity - 1 - start)
        // Safety: start + n < messageCapacity, and `bytes` holds at least n bytes.
        if n > 0 { (UnsafeMutableRawPointer(message) + start).copyMemory(from: bytes, byteCount: n) }
        return start + max(n, 0)
    }

    func setMessage(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            let n = min(utf8.count, Self.messageCapacity - 1)
            // Safety: n < messageCapacity bytes from a buffer of at least n bytes.
            if n > 0 { UnsafeMutableRawPointer(message).copyMemory(from: utf8.baseAddress!, byteCount: n) }
            message[n] = 0
        }
    }

    func clearMessage() { message[0] = 0 }
}

/// Where the verified documents are, and their shadows and join areas in a context's arena.
struct VerifiedLayout {
    /// The header, the claims right behind it: the arena's start, or a held cache entry's bytes.
    let documents: UnsafeRawPointer
    let headerCount: Int
    let claimsCount: Int
    /// In the arena: room for the documents (header at 0, claims at headerCount, used when they are copied
    /// there); then the header's and the claims' shadows, then their join areas, each region the size of its
    /// document. Wrapping arithmetic: both counts are at most a token's size limit, far from overflow, and the
    /// checks would be most of what `ClaimsExport.fill` executes.
    var claimsOffset: Int { headerCount }
    var headerShadowOffset: Int { headerCount &+ claimsCount }
    var claimsShadowOffset: Int { 2 &* headerCount &+ claimsCount }
    var headerJoinOffset: Int { 2 &* (headerCount &+ claimsCount) }
    var claimsJoinOffset: Int { 3 &* headerCount &+ 2 &* claimsCount }
    var total: Int { 3 &* (headerCount &+ claimsCount) }

    /// One document, and its shadow and join area (arena offsets).
    struct Document {
        let start: UnsafeRawPointer
        let count: Int
        let shadowOffset: Int
        let joinOffset: Int

        var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: start, count: count) }
    }

    var header: Document {
        Document(start: documents, count: headerCount, shadowOffset: headerShadowOffset, joinOffset: headerJoinOffset)
    }

    var claims: Document {
        Document(
            start: documents + claimsOffset, count: claimsCount, shadowOffset: claimsShadowOffset,
            joinOffset: claimsJoinOffset)
    }
}
