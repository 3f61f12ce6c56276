// swift-tools-version: 6.1
import PackageDescription

// A package of its own so that users of the core (JWTKernel, JWTKernelRemote, libjwtk.so.0) never resolve
// Vapor: only this manifest names it. The core is a path dependency on the repository's root. (The folder
// is not called "Vapor": a root package's identity is its folder's name, and "vapor" is Vapor's own.)
let package = Package(
    name: "jwt-kernel-vapor",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "JWTKernelVapor", targets: ["JWTKernelVapor"])
    ],
    dependencies: [
        .package(name: "jwt-kernel", path: "../.."),
        .package(url: "https://github.com/vapor/vapor.git", from: "4.100.0"),
        // Already Vapor's dependency; named for NIOLockedValueBox (Vapor re-exports only NIO's old Lock).
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.81.0"),
        // Tests only: the loopback JWKS server and test keys shared with the Hummingbird integration.
        .package(name: "jwt-kernel-integration-testing", path: "../JWTKernelIntegrationTesting"),
    ],
    targets: [
        .target(
            name: "JWTKernelVapor",
            dependencies: [
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                // The refresher's events through the application's logger (Logger.log(_: KeyRefresherEvent)).
                .product(name: "JWTKernelServer", package: "jwt-kernel"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "JWTKernelVaporTests",
            dependencies: [
                "JWTKernelVapor",
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                .product(name: "XCTVapor", package: "vapor"),
                .product(name: "JWTKernelIntegrationTesting", package: "jwt-kernel-integration-testing"),
            ]
        ),
    ]
)
