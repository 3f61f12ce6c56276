import CJWTK

/// The library's version, checked against the header's JWTK_VERSION_NUMBER by callers (sqlite's pattern).
enum LibraryVersion {
    static let text: StaticString = "0.1.0"
    static let number: Int32 = 1000
}

@c @implementation
public func jwtk_version() -> UnsafePointer<CChar>? {
    // Safety: a static string literal, NUL-terminated in the binary, never freed.
    UnsafeRawPointer(LibraryVersion.text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c @implementation
public func jwtk_version_number() -> Int32 { LibraryVersion.number }
