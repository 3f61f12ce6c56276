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
        .target(
            name: "JWTKernel",
            dependencies: ["COpenSSL", "CXXHash"],
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
    ]
)
