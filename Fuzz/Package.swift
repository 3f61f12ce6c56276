// swift-tools-version: 6.1
// libFuzzer harnesses and a threaded stress for JWTKernel: a package of its own so the main
// package's build and tests never compile them. Fuzz builds (see scripts/fuzz.sh):
//   swift build -c release --sanitize=fuzzer --sanitize=address --product FuzzVerify -Xswiftc -DFUZZING
// Plain `swift build` gives corpus-replay runners: `.build/debug/FuzzVerify corpus/FuzzVerify`.
import PackageDescription

let harnesses = ["FuzzVerify", "FuzzJSON", "FuzzBase64URL", "FuzzJWKS"]

let package = Package(
    name: "jwt-kernel-fuzz",
    products: (harnesses + ["StressVerify"]).map { .executable(name: $0, targets: [$0]) },
    dependencies: [
        .package(name: "jwt-kernel", path: ".."),
    ],
    targets: [
        // The harnesses' own OpenSSL use (signing fuzzed claims, the stress's tokens); the
        // library's COpenSSL is not a product, and a second module of that name would clash.
        .systemLibrary(name: "CFuzzCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .target(
            name: "FuzzSupport",
            dependencies: ["CFuzzCrypto", .product(name: "JWTKernel", package: "jwt-kernel")]
        ),
    ] + (harnesses + ["StressVerify"]).map { name in
        .executableTarget(
            name: name,
            dependencies: ["FuzzSupport", "CFuzzCrypto", .product(name: "JWTKernel", package: "jwt-kernel")]
        )
    }
)
