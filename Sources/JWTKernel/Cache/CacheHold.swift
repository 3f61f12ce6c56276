/// Where a caller keeps a cache hit's entry after `verifyLending` returns, so that the hit's documents (the
/// `VerifiedToken`'s header and claims point into the entry) outlive the call without being copied: the C
/// library's `jwtk_ctx`, whose claim pointers jwtk.h promises until the context's next call.
@_spi(Internals)
public typealias CacheHold = UnsafeMutablePointer<HeldCacheEntry>

/// The slot a `CacheHold` points to. On a hit, before `body` runs, the entry is moved in (dropping the one held
/// before) and `fresh` set: the `VerifiedToken`'s documents are then the entry's bytes, the header followed by the
/// claims, immutable while held. A miss or a failure leaves the slot as it was, so the caller clears `fresh` before
/// each call and drops a stale `entry` when it no longer needs it. The lookup's own reference is what is moved in,
/// so holding adds no atomic: the one release is of the entry held before (a cache hit is some 50 ns, and each
/// atomic some 5 of them), and clearing `fresh`, a plain store, costs none.
@_spi(Internals)
public struct HeldCacheEntry {
    public var entry: AnyObject? = nil
    public var fresh = false
    /// The entry's attachment word when it was moved in (`CacheAttachment`), read here so that the holder need
    /// not load `entry`, a strong reference, and so retain and release it, to see it.
    public var attachment: UInt = 0
    public init() {}
}
