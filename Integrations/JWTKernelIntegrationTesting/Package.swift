// swift-tools-version: 6.1
import PackageDescription

// What the Hummingbird and Vapor integration tests share, so that neither copies it: the core's
// JWTKernelTestSupport (the loopback JWKS server, OpenSSL-made keys), re-exported, and HS256 test issuers. Test code only: no framework, and no integration's product depends on it.
let package = Package(
    name: "jwt-kernel-integration-testing",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "JWTKernelIntegrationTesting", targets: ["JWTKernelIntegrationTesting"])
    ],
    dependencies: [
        .package(name: "jwt-kernel", path: "../..")
    ],
    targets: [
        .target(
            name: "JWTKernelIntegrationTesting",
            dependencies: [
                .product(name: "JWTKernel", package: "jwt-kernel"),
                // The loopback server and OpenSSL keys, re-exported: the core's tests use the same ones.
                .product(name: "JWTKernelTestSupport", package: "jwt-kernel"),
            ]
        )
    ]
)
