// swift-tools-version: 6.1
// libFuzzer harnesses and a threaded stress for JWTKernel: a package of its own so the main
// package's build and tests never compile them. Fuzz builds (see scripts/fuzz.sh):
//   swift build -c release --sanitize=fuzzer --sanitize=address --product FuzzVerify -Xswiftc -DFUZZING
// Plain `swift build` gives corpus-replay runners: `.build/debug/FuzzVerify corpus/FuzzVerify`.
import PackageDescription

// Every libFuzzer harness (Fuzz/run.sh fuzzes each; `make fuzz-replay` replays each one's corpus).
// The deep verify harnesses use HMAC keys (fast); one harness per public-key family keeps the
// signature code fuzzed.
let harnesses = [
    "FuzzVerify", "FuzzVerifySigned", "FuzzVerifyRSA", "FuzzVerifyEC", "FuzzVerifyEdDSA",
    "FuzzJSON", "FuzzBase64URL", "FuzzJWKS", "FuzzKeyStore",
    "FuzzCABI", "FuzzRemoteResponse", "FuzzDecrypt",
]
let verifyHarnesses: Set<String> = [
    "FuzzVerify", "FuzzVerifySigned", "FuzzVerifyRSA", "FuzzVerifyEC", "FuzzVerifyEdDSA",
]

let package = Package(
    name: "jwt-kernel-fuzz",
    products: (harnesses + ["StressVerify"]).map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "jwt-kernel", path: "..")
    ],
    targets: [
        // The harnesses' own OpenSSL use (signing fuzzed claims, the stress's tokens); the
        // library's COpenSSL is not a product, and a second module of that name would clash.
        .systemLibrary(name: "CFuzzCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        // libFuzzer's LLVMFuzzerMutate, for FuzzVerifySigned's structure-aware mutator.
        .systemLibrary(name: "CLibFuzzer"),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzCrypto", .product(name: "JWTKernel", package: "jwt-kernel")]
        ),
        // The verify harnesses' shared input format and invariants.
        .target(
            name: "VerifyChecks",
            dependencies: ["FuzzSupport", .product(name: "JWTKernel", package: "jwt-kernel")]
        ),
    ] + (harnesses + ["StressVerify"]).map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", "CFuzzCrypto", .product(name: "JWTKernel", package: "jwt-kernel")]
                + (verifyHarnesses.contains(name) ? ["VerifyChecks", "CLibFuzzer"] : [])
                // The C library's entry points, called as a C host would (jwtk.h through CJWTK).
                + (name == "FuzzCABI" ? [.product(name: "jwtkc", package: "jwt-kernel")] : [])
                + (name == "FuzzRemoteResponse" ? [.product(name: "JWTKernelRemote", package: "jwt-kernel")] : [])
                // The byte-at-a-time reference reader the fast parser is held to (a test oracle, not in the product).
                + (name == "FuzzJSON" ? [.product(name: "JWTKernelTestOracles", package: "jwt-kernel")] : [])
        )
    }
)
