// FuzzVerifyRSA: RS256/PS256 signature code: signed header/claims and raw RSA tokens.
// Input format and invariants: Sources/VerifyChecks (VerifyInput.swift, SignatureChecks.swift).
import FuzzSupport
import VerifyChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runVerifyInput(data, size, signers: [.rs256, .ps256], depth: .signature)
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzVerifyRSA", fuzzEntry) }
}
#endif
