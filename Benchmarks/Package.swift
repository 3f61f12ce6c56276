// swift-tools-version: 6.1
// Comparison benchmarks; a package of their own so the main package never builds jwt-kit.
import PackageDescription
import class Foundation.ProcessInfo

// Dev escape hatch while the JWTKernel API is in flux: JWTK_BENCH_NO_KERNEL=1 builds the peers only.
let withKernel = ProcessInfo.processInfo.environment["JWTK_BENCH_NO_KERNEL"] == nil

let package = Package(
    name: "jwt-kernel-benchmarks",
    platforms: [.macOS(.v13)],  // jwt-kit's floor
    products: [
        .executable(name: "jwtk-compare", targets: ["jwtk-compare"]),
    ],
    dependencies: [
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.8.0"),
    ] + (withKernel ? [.package(name: "jwt-kernel", path: "..")] : []),
    targets: [
        .systemLibrary(name: "CBenchCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
        .systemLibrary(name: "CBenchLibJWT", pkgConfig: "libjwt", providers: [.apt(["libjwt-dev"])]),
        // openssl-raw and libjwt drivers plus the in-process malloc counter.
        .target(name: "CBenchPeers", dependencies: ["CBenchCrypto", "CBenchLibJWT"]),
        .executableTarget(
            name: "jwtk-compare",
            dependencies: [
                "CBenchPeers",
                .product(name: "JWTKit", package: "jwt-kit"),
            ] + (withKernel ? [.product(name: "JWTKernel", package: "jwt-kernel")] : []),
            swiftSettings: withKernel ? [.define("WITH_JWTKERNEL")] : []
        ),
    ]
)
