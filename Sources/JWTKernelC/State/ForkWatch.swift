@_spi(Internals) import JWTKernel

#if canImport(Glibc)
import Glibc
#endif

/// Fork detection without a syscall per call: pthread_atfork handlers, installed by the first
/// jwtk_keystore_start (never at load time or in a _new), bump a fork epoch in the child, so a keystore
/// started in an earlier epoch knows at its next call that its refresher thread is not in this process.
/// Around fork() the handlers also hold the lock of every started keystore and of its refresher's key
/// parsing and publication, so a child never inherits one of those locks held by another thread.
enum ForkWatch {
    /// Word 0: forks seen by this process's ancestors and itself since the library was loaded.
    private static let epoch = AtomicWords(count: 1)
    /// Never 0 (0 means "not started" to a keystore).
    @inline(__always) static var current: UInt64 { epoch.load(0) &+ 1 }

    private static let registry = PThreadLock()
    // Safety: read and written only with `registry` held (the fork handlers hold it across fork()).
    nonisolated(unsafe) private static var tracked: [ObjectIdentifier: Unmanaged<KeystoreState>] = [:]
    // Safety: written by `prepare` and read by `parent`/`child`, all on the forking thread with `registry` held.
    nonisolated(unsafe) private static var epochAtPrepare: UInt64 = 0

    private static let installed: Bool = {
        _ = epoch
        _ = registry
        return pthread_atfork(
            { ForkWatch.prepare() }, { ForkWatch.release(child: false) }, { ForkWatch.release(child: true) }) == 0
    }()

    static func install() { _ = installed }

    /// Unretained: a keystore leaves the table in its deinit.
    static func track(_ keystore: KeystoreState) {
        registry.withLock { tracked[ObjectIdentifier(keystore)] = Unmanaged.passUnretained(keystore) }
    }

    static func untrack(_ keystore: KeystoreState) {
        registry.withLock { _ = tracked.removeValue(forKey: ObjectIdentifier(keystore)) }
    }

    private static func prepare() {
        registry.lock()
        epochAtPrepare = current
        for k in tracked.values { k.takeUnretainedValue().holdForFork() }
    }

    private static func release(child: Bool) {
        for k in tracked.values { k.takeUnretainedValue().releaseAfterFork(epochBefore: epochAtPrepare) }
        if child { epoch.add(0) }
        registry.unlock()
    }
}
