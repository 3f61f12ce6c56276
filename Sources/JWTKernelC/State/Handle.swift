/// What a `jwtk_keystore *`, `jwtk_verifier *` or `jwtk_ctx *` points to: a small slot holding a
/// kind tag and a retained Swift object. Every call checks the tag first, so a NULL pointer, a handle
/// of another kind, or (usually) a freed handle gets `JWTK_E_HANDLE` instead of undefined behaviour.
/// A freed slot has its tag overwritten before its memory is returned to malloc.
struct HandleSlot {
    var tag: UInt64
    var object: Unmanaged<AnyObject>
}

/// The tag of each handle kind ("jwtk" + kind); `dead` marks a slot being freed.
enum HandleKind: UInt64 {
    case keystore = 0x6a77_746b_0000_4b53
    case verifier = 0x6a77_746b_0000_5646
    case context = 0x6a77_746b_0000_4358
    static let dead: UInt64 = 0xdead_dead_dead_dead
}

enum Handle {
    /// A new handle owning one reference to `object`.
    static func make(_ object: AnyObject, _ kind: HandleKind) -> OpaquePointer {
        let slot = UnsafeMutablePointer<HandleSlot>.allocate(capacity: 1)
        // Safety: fresh allocation, initialized exactly once here; freed only by `release`.
        slot.initialize(to: HandleSlot(tag: kind.rawValue, object: Unmanaged.passRetained(object)))
        return OpaquePointer(slot)
    }

    /// The live object behind `handle` if it is a live handle of `kind`, else nil.
    @inline(__always)
    static func object<T: AnyObject>(_ handle: OpaquePointer?, _ kind: HandleKind, as: T.Type) -> T? {
        guard let handle else { return nil }
        // Safety: the caller promised a handle from this library; the tag check rejects other kinds and
        // (while the memory is not reused) freed slots. Reading a freed slot is the caller's bug, as in C.
        let slot = UnsafeMutablePointer<HandleSlot>(handle)
        guard slot.pointee.tag == kind.rawValue else { return nil }
        // Safety: a slot with this tag holds an object of this kind's class (set only by `make`).
        return unsafeDowncast(slot.pointee.object.takeUnretainedValue(), to: T.self)
    }

    /// `object` without taking a reference, for the verify path: the caller owns the handle for the whole call
    /// (freeing a handle another thread is using is the caller's bug, as in C), so the object is alive until the
    /// call returns and a retain/release pair per handle (two atomic read-modify-writes) buys nothing.
    @inline(__always)
    static func unretained<T: AnyObject>(_ handle: OpaquePointer?, _ kind: HandleKind, as: T.Type) -> Unmanaged<T>? {
        guard let handle else { return nil }
        // Safety: as in `object`.
        let slot = UnsafeMutablePointer<HandleSlot>(handle)
        guard slot.pointee.tag == kind.rawValue else { return nil }
        // Safety: a slot with this tag holds an object of this kind's class (set only by `make`).
        return Unmanaged<T>.fromOpaque(slot.pointee.object.toOpaque())
    }

    /// Drops the handle's reference and frees the slot; false if `handle` is not a live `kind` handle.
    @discardableResult
    static func release(_ handle: OpaquePointer?, _ kind: HandleKind) -> Bool {
        guard let handle else { return false }
        // Safety: as in `object`; the tag is cleared before the memory goes back to malloc.
        let slot = UnsafeMutablePointer<HandleSlot>(handle)
        guard slot.pointee.tag == kind.rawValue else { return false }
        slot.pointee.tag = HandleKind.dead
        let object = slot.pointee.object
        slot.deinitialize(count: 1)
        slot.deallocate()
        object.release()
        return true
    }
}
