// swift-tools-version: 6.1
import PackageDescription

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
        // Envoy's ext_authz over gRPC (docs/ENVOY.md, "ext_authz over gRPC"): the messages only. The agent serves
        // the one unary method on Hummingbird's own plaintext HTTP/2 server (HummingbirdHTTP2, on swift-nio-http2,
        // both built here already), so grpc-swift 2 is not needed. Measured cold in release, in CPU seconds:
        // SwiftProtobuf 40 s (what this adds: ~1 min of CI); grpc-swift 2 with its posix HTTP/2 transport and
        // grpc-swift-protobuf would add ~52 s more and three packages (its transport also needs swift-nio-ssl's
        // BoringSSL and swift-certificates even for plaintext, ~370 s, already built in this package).
        .package(url: "https://github.com/apple/swift-protobuf.git", from: "1.39.0"),
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
        // envoy.service.auth.v3's messages: the Swift code of Protos/envoy_ext_authz.proto (Protos/generate.sh),
        // generated once and committed.
        .target(
            name: "JWTKernelExtAuthzProto",
            dependencies: [.product(name: "SwiftProtobuf", package: "swift-protobuf")]
        ),
        // The agent's ext_authz gRPC service over ForwardAuthCheck, and its route on an HTTP/2 server.
        .target(
            name: "JWTKernelExtAuthz",
            dependencies: [
                "JWTKernelExtAuthzProto",
                "JWTKernelForwardAuth",
                "JWTKernelHummingbird",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdHTTP2", package: "hummingbird"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "jwtk-forward-auth",
            dependencies: [
                "JWTKernelForwardAuth",
                "JWTKernelExtAuthz",
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
                "JWTKernelExtAuthzProto", "JWTKernelExtAuthz",
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ]
        ),
    ]
)
