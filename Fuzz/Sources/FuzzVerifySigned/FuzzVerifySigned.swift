// FuzzVerifySigned: structure-aware: header and claims JSON mutated separately (StructuredMutator.swift), signed with HS256, so claims checks and the verified-token cache are reached on every input.
// Input format and invariants: Sources/VerifyChecks (VerifyInput.swift, DeepChecks.swift).
import FuzzSupport
import VerifyChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runVerifyInput(data, size, signers: [.hs256], depth: .deep)
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzVerifySigned", fuzzEntry) }
}
#endif
