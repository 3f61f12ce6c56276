// FuzzVerify: the full verify path on raw token bytes (and HS256-signed header/claims), every invariant; HMAC seeds keep it fast.
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
    static func main() { FuzzReplay.run("FuzzVerify", fuzzEntry) }
}
#endif
