// A custom mutator for `selector headerJSON 0x00 claimsJSON` inputs: it mutates the header or
// the claims (claims twice as often, they hold more checks) with libFuzzer's own mutator and
// keeps the selector byte and the separator, so every mutant is still a signed-mode input.
// Byte-level mutation of the whole input would often destroy the separator or the selector
// and fall back to raw mode, where no token carries a valid signature.
#if FUZZING
import CLibFuzzer

@_cdecl("LLVMFuzzerCustomMutator")
public func structuredMutate(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    guard size >= 1, data[0] < 0x08, maxSize > 2 else {
        // Not a signed-mode input: start one from an empty header and empty claims.
        let fresh: [UInt8] = [0x00] + Array(#"{"alg":"HS256"}"#.utf8) + [0x00] + Array("{}".utf8)
        guard fresh.count <= maxSize else { return LLVMFuzzerMutate(data, size, maxSize) }
        for (i, b) in fresh.enumerated() { data[i] = b }
        return fresh.count
    }
    // Safety: data holds maxSize bytes (libFuzzer's contract); size <= maxSize.
    let buf = UnsafeMutableBufferPointer(start: data, count: maxSize)
    var sep = 1
    while sep < size, buf[sep] != 0 { sep += 1 }
    let header = Array(buf[1..<sep])
    let claims = sep < size ? Array(buf[(sep + 1)..<size]) : []
    let mutateHeader = seed % 3 == 0
    var part = mutateHeader ? header : claims
    let fixed = 2 + (mutateHeader ? claims.count : header.count)  // selector, separator, other part
    guard maxSize > fixed else { return size }
    let room = maxSize - fixed
    part += [UInt8](repeating: 0, count: max(0, room - part.count))
    let used = mutateHeader ? header.count : claims.count
    let newCount = part.withUnsafeMutableBufferPointer { LLVMFuzzerMutate($0.baseAddress!, used, room) }
    var mutated = Array(part.prefix(newCount))
    if mutateHeader {
        // A NUL inside the header would move the separator: keep the header one part.
        for i in mutated.indices where mutated[i] == 0 { mutated[i] = 0x20 }
    }
    let out: [UInt8] = [buf[0]] + (mutateHeader ? mutated : header) + [0] + (mutateHeader ? claims : mutated)
    for (i, b) in out.enumerated() { buf[i] = b }
    return out.count
}

#endif
