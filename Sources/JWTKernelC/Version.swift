import CJWTK

/// The library's version: the header's, compiled in, so a caller can compare the header it was built
/// with against the library it loaded (sqlite's pattern). The string is a literal (a static C string);
/// the tests check it equals JWTK_VERSION.
enum LibraryVersion {
    static let text: StaticString = "0.1.0"
    static let number: Int32 = JWTK_VERSION_NUMBER
}

@c @implementation
public func jwtk_version() -> UnsafePointer<CChar>? {
    // Safety: a static string literal, NUL-terminated in the binary, never freed.
    UnsafeRawPointer(LibraryVersion.text.utf8Start).assumingMemoryBound(to: CChar.self)
}

@c @implementation
public func jwtk_version_number() -> Int32 { LibraryVersion.number }
