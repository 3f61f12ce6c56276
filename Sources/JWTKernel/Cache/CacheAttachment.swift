import Synchronization

/// What a front end derives from a cache entry once and keeps with it, so that later hits of the same entry copy
/// the result instead of deriving it again: the C library's filled `jwtk_claims`, whose strings point into the
/// entry's immutable bytes (filling it field by field was ~200 of a C cache hit's ~1,180 instructions; copying a
/// made one is a few loads and stores).
///
/// An entry's attachment is set at most once, by whichever hit first offers one (a compare-and-exchange, once per
/// entry); every later hit reads it with one acquiring load (a plain load on x86 and arm64) into the `CacheHold`
/// slot. The bytes are the entry's from then on: allocated by the front end with `UnsafeMutableRawPointer.allocate`,
/// freed with the entry. They must not point into anything the entry does not keep alive (its bytes, static
/// storage).
@_spi(Internals)
public enum CacheAttachment {
    /// The word of an entry whose rendering is not the same for every holder (the C library: a string with
    /// escapes, which each ctx decodes into its own arena), so no hit tries again.
    public static let declined: UInt = 1

    static func free(_ word: UInt) {
        guard word > declined else { return }
        UnsafeMutableRawPointer(bitPattern: word)?.deallocate()
    }
}

@_spi(Internals)
extension HeldCacheEntry {
    /// Offers `word` (bytes made with `UnsafeMutableRawPointer.allocate`, or `CacheAttachment.declined`) as the
    /// held entry's attachment. False when another hit attached first: the caller keeps, and frees, its bytes.
    /// Only while `fresh` (the entry is then a `CacheEntry`: only `lend` fills the slot).
    public func attach(_ word: UInt) -> Bool {
        unsafeDowncast(entry.unsafelyUnwrapped, to: CacheEntry.self).attachment
            .compareExchange(expected: 0, desired: word, ordering: .acquiringAndReleasing).exchanged
    }
}
