/// Where a caller keeps a cache hit's entry after `verifyLending` returns, so that the hit's documents (the
/// `VerifiedToken`'s header and claims point into the entry) outlive the call without being copied: the C
/// library's `jwtk_ctx`, whose claim pointers jwtk.h promises until the context's next call.
///
/// On a hit the entry is stored here before `body` runs, and a hit's documents are then the entry's: the header
/// followed by the claims, contiguous and immutable. Nothing is stored on a miss or a failure (the caller clears
/// the slot first when it needs to tell them apart). The lookup's own reference is what is handed over, so
/// holding costs no atomic beyond the one that drops the entry held before (a cache hit is some 50 ns, and each
/// atomic some 5 of them).
@_spi(Internals)
public typealias CacheHold = UnsafeMutablePointer<AnyObject?>
