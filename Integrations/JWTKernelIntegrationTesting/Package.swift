// swift-tools-version: 6.1
import PackageDescription

// What the Hummingbird and Vapor integration tests share, so that neither copies it: the core's loopback
// JWKS server (Tests/JWTKernelRemoteTests/Server/jwks_server.py, run as a subprocess) and test keys and
// tokens. Test code only: no framework, and no integration's product depends on it.
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
            dependencies: [.product(name: "JWTKernel", package: "jwt-kernel")]
        )
    ]
)
