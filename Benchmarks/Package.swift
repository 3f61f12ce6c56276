// swift-tools-version: 6.1
// Comparison (jwtk-compare) and micro (KernelMicro) benchmarks; a package of their own so
// the main package never builds jwt-kit or package-benchmark.
import PackageDescription

let package = Package(
    name: "jwt-kernel-benchmarks",
    platforms: [.macOS(.v13)],  // jwt-kit's floor
    products: [
        .executable(name: "jwtk-compare", targets: ["jwtk-compare"]),
        .executable(name: "jwtk-instructions", targets: ["jwtk-instructions"]),
    ],
    dependencies: [
        .package(name: "jwt-kernel", path: ".."),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
        // The explicit trait list drops the default RuntimeInterposer, whose package is not mirrored here.
        .package(url: "https://github.com/ordo-one/benchmark.git", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .systemLibrary(name: "CBenchCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CBenchLibJWT", pkgConfig: "libjwt", providers: [.apt(["libjwt-dev"])]),
        // openssl-raw and libjwt drivers plus the in-process malloc counter.
        .target(name: "CBenchPeers", dependencies: ["CBenchCrypto", "CBenchLibJWT"]),
        .executableTarget(
            name: "jwtk-compare",
            dependencies: [
                "CBenchPeers",
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKit", package: "jwt-kit"),
            ]
        ),
        // The Swift API's cells for callgrind (Benchmarks/instructions/run.sh, the cost guard Benchmarks/guard/):
        // JWTKernel only, so `--product jwtk-instructions` never compiles jwt-kit.
        .executableTarget(
            name: "jwtk-instructions",
            dependencies: [.product(name: "JWTKernel", package: "jwt-kernel")],
            path: "instructions",
            exclude: ["run.sh"]
        ),
        .executableTarget(
            name: "KernelMicro",
            dependencies: [
                .product(name: "Benchmark", package: "benchmark"),
                .product(name: "JWTKernel", package: "jwt-kernel"),
            ],
            path: "Benchmarks/KernelMicro",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "benchmark")]
        ),
    ]
)
