// How a verify harness turns its input into a token, and which checks it runs.
//
// Input format (shared by every verify harness, so seeds move between them):
//   - first byte 0x00...0x07: "signed" mode. The byte picks one of the harness's signing keys
//     (byte % count); the rest is `headerJSON 0x00 claimsJSON` (no 0x00: empty claims). The
//     harness base64url-encodes and signs them, so fuzzed JSON reaches the header,
//     key-selection, claims, policy and cache code behind a valid signature.
//   - anything else: "raw" mode, the bytes are the token.
import FuzzSupport
@_spi(Internals) import JWTKernel

public enum VerifyDepth: Sendable {
    /// Every invariant including API agreement and the cache (HMAC harnesses).
    case deep
    /// The signature subset (public-key harnesses).
    case signature
}

/// The whole `LLVMFuzzerTestOneInput` of a verify harness.
public func runVerifyInput(_ data: UnsafePointer<UInt8>?, _ size: Int, signers: [FuzzSigner.Key], depth: VerifyDepth) {
    func check(_ token: UnsafeRawBufferPointer) {
        switch depth {
        case .deep: deepChecks(token)
        case .signature: signatureChecks(token)
        }
    }
    let input = UnsafeBufferPointer(start: data, count: size)
    if let first = input.first, first < 0x08 {
        let key = signers[Int(first) % signers.count]
        let body = input.dropFirst()
        let sep = body.firstIndex(of: 0) ?? body.endIndex
        let header = body[body.startIndex..<sep]
        let claims = sep < body.endIndex ? body[(sep + 1)...] : body[body.endIndex...]
        if depth == .deep { checkHeaderFastPath(header) }
        let token = FuzzSigner.token(header: header, payload: claims, key: key)
        token.withUnsafeBytes { check($0) }
    } else {
        // A private heap copy of exactly `size` bytes, so ASan sees any read past the token.
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 1)
        defer { copy.deallocate() }
        if size > 0 { copy.copyMemory(from: UnsafeRawBufferPointer(input)) }
        check(UnsafeRawBufferPointer(copy))
    }
}

/// The common-shape header reader against the full strict parser on the fuzzed header
/// (JOSEHeader+CommonShape.swift): they must agree on members or error code. An exact-size
/// heap copy, so ASan sees any read past the header.
func checkHeaderFastPath(_ header: Slice<UnsafeBufferPointer<UInt8>>) {
    let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: header.count, alignment: 1)
    defer { copy.deallocate() }
    if !header.isEmpty { copy.copyMemory(from: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: header))) }
    if let d = JOSEHeaderFastPathCheck.disagreement(UnsafeRawBufferPointer(copy)) {
        require(false, "header fast path: \(d): \(String(decoding: header, as: UTF8.self))")
    }
}
