/// A Swift string literal as a C string. Literals are emitted NUL-terminated in read-only memory
/// and never freed, which is what `const char *` results with static lifetime need
/// (the C tests compare every such string with strcmp, so a missing terminator would show).
@inline(__always)
func cString(_ s: StaticString) -> UnsafePointer<CChar> {
    // Safety: a literal's utf8Start is valid for the life of the process and NUL-terminated.
    UnsafeRawPointer(s.utf8Start).assumingMemoryBound(to: CChar.self)
}
