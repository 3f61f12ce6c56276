// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "jwt-kernel",
    products: [
        .library(name: "JWTKernel", targets: ["JWTKernel"]),
        .executable(name: "jwtk", targets: ["jwtk"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
    ],
    targets: [
        .systemLibrary(
            name: "COpenSSL",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .systemLibrary(
            name: "CXXHash",
            pkgConfig: "libxxhash",
            providers: [.apt(["libxxhash-dev"])]
        ),
        // Vectorised hot-path loops in C (AVX2/SSSE3 with runtime dispatch); the Swift caller owns every edge case.
        .target(name: "CJWTKernelSIMD"),
        .target(
            name: "JWTKernel",
            dependencies: ["COpenSSL", "CXXHash", "CJWTKernelSIMD"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "jwtk",
            dependencies: [
                "JWTKernel",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "JWTKernelTests",
            dependencies: ["JWTKernel", "COpenSSL"],
            resources: [.copy("Fixtures")]
        ),
        // The jwtk contract, checked from outside: the tests run the built binary as a
        // process (see Support/CLIHarness.swift), so they link no module of it.
        .testTarget(
            name: "jwtkCLITests",
            dependencies: ["COpenSSL"],
            resources: [.copy("Fixtures")]
        ),
    ]
)
