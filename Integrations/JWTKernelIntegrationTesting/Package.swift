// swift-tools-version: 6.1
import PackageDescription

// What the Hummingbird and Vapor integration tests share, so that neither copies it: the core's
// JWTKernelTestSupport (the loopback JWKS server, OpenSSL-made keys, the verdict corpus and its one comparison),
// re-exported, HS256 test issuers, and the corpus's configurations set up as a server application sets them up.
// Test code only: no framework, and no integration's product depends on it.
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
                // The verdict corpus's configurations: IssuerConfigurationFile, KeyRefresher.register.
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                // The loopback server and OpenSSL keys, re-exported: the core's tests use the same ones.
                .product(name: "JWTKernelTestSupport", package: "jwt-kernel"),
            ]
        )
    ]
)
