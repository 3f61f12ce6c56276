import CJWTK
import CJWTKSupport

// The library's version is the header's (JWTK_VERSION, JWTK_VERSION_NUMBER), compiled in, so a caller can
// compare the header it was built with against the library it loaded (sqlite's pattern). Nothing here
// spells a version: the header's is checked against the top-level VERSION file (scripts/version-check.sh).

@c @implementation
public func jwtk_version() -> UnsafePointer<CChar>? {
    // Safety: jwtk_support_version (CJWTKSupport) returns JWTK_VERSION, a string literal: static, NUL-terminated, never freed.
    jwtk_support_version()
}

@c @implementation
public func jwtk_version_number() -> Int32 { JWTK_VERSION_NUMBER }
