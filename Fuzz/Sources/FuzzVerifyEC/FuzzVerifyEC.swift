// FuzzVerifyEC: ES256/ES384/ES512 signature code (raw r||s to DER, P-256/384/521).
// Input format and invariants: Sources/VerifyChecks (VerifyInput.swift, SignatureChecks.swift).
import FuzzSupport
import VerifyChecks

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzEntry(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    runVerifyInput(data, size, signers: [.es256, .es384, .es512], depth: .signature)
    return 0
}

#if !FUZZING
@main struct Replay {
    static func main() { FuzzReplay.run("FuzzVerifyEC", fuzzEntry) }
}
#endif
