// FuzzVerifyEdDSA: EdDSA/Ed25519 signature code.
// Input format and invariants: Sources/VerifyChecks (VerifyInput.swift, SignatureChecks.swift).
import FuzzSupport
import VerifyChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runVerifyInput(data, size, signers: [.ed25519], depth: .signature)
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzVerifyEdDSA", fuzzEntry) }
}
#endif
