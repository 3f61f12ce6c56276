// swift-tools-version: 6.1
import Foundation
import PackageDescription

// Envoy's ext_authz over gRPC (docs/ENVOY.md), not finished (the agent does not serve it yet): its targets and
// tests build only with JWTK_EXT_AUTHZ=1 (make ext-authz-test), since grpc-swift 2 and swift-protobuf add ~15 min
// to a cold build of this package, which CI's integrations stage would pay for an unfinished service.
let extAuthz = ProcessInfo.processInfo.environment["JWTK_EXT_AUTHZ"] == "1"

// A package of its own so that users of the core (JWTKernel, JWTKernelRemote, libjwtk.so.0) never resolve
// Hummingbird: only this manifest names it. The core is a path dependency on the repository's root.
// (The folder is not called "Hummingbird": a root package's identity is its folder's name, and "hummingbird"
// is Hummingbird's own, which hummingbird-auth depends on.)
let package = Package(
    name: "jwt-kernel-hummingbird",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "JWTKernelHummingbird", targets: ["JWTKernelHummingbird"]),
        // The forward-auth agent (issue 20 section 3): gateways that cannot load libjwtk ask it per request.
        .library(name: "JWTKernelForwardAuth", targets: ["JWTKernelForwardAuth"]),
        .executable(name: "jwtk-forward-auth", targets: ["jwtk-forward-auth"]),
    ],
    dependencies: [
        .package(name: "jwt-kernel", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.0.0"),
        // The forward-auth agent's command line and its /metrics text.
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.0"),
        // Tests only: the loopback JWKS server and test keys shared with the Vapor integration.
        .package(name: "jwt-kernel-integration-testing", path: "../JWTKernelIntegrationTesting"),
    ],
    targets: [
        .target(
            name: "JWTKernelHummingbird",
            dependencies: [
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                // KeyRefresherService (the refresher as one of the application's services), VerificationCounters.
                .product(name: "JWTKernelServer", package: "jwt-kernel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .target(
            name: "JWTKernelForwardAuth",
            dependencies: [
                "JWTKernelHummingbird",
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                .product(name: "JWTKernelServer", package: "jwt-kernel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "jwtk-forward-auth",
            dependencies: [
                "JWTKernelForwardAuth",
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                .product(name: "JWTKernelServer", package: "jwt-kernel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .testTarget(
            name: "JWTKernelHummingbirdTests",
            dependencies: [
                "JWTKernelHummingbird",
                "JWTKernelForwardAuth",
                .product(name: "JWTKernel", package: "jwt-kernel"),
                .product(name: "JWTKernelRemote", package: "jwt-kernel"),
                .product(name: "JWTKernelServer", package: "jwt-kernel"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdAuth", package: "hummingbird-auth"),
                .product(name: "JWTKernelIntegrationTesting", package: "jwt-kernel-integration-testing"),
            ]
                + (extAuthz
                    ? [
                        "JWTKernelExtAuthzProto", "JWTKernelExtAuthz",
                        .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                        .product(name: "GRPCCore", package: "grpc-swift-2"),
                    ] : []),
            exclude: extAuthz ? [] : ["ExtAuthzProtoTests.swift", "ExtAuthzServiceTests.swift"]
        ),
    ]
)

if extAuthz {
    package.dependencies += [
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
        .package(url: "https://github.com/grpc/grpc-swift-2.git", from: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf.git", from: "2.4.1"),
    ]
    package.targets += [
        // envoy.service.auth.v3.Authorization: the Swift code of Protos/envoy_ext_authz.proto (Protos/generate.sh),
        // the messages and the server side of the service.
        .target(
            name: "JWTKernelExtAuthzProto",
            dependencies: [
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
            ]
        ),
        // The agent's ext_authz gRPC service over ForwardAuthCheck (docs/ENVOY.md).
        .target(
            name: "JWTKernelExtAuthz",
            dependencies: [
                "JWTKernelExtAuthzProto",
                "JWTKernelForwardAuth",
                "JWTKernelHummingbird",
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
    ]
}
