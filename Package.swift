// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "jwt-kernel",
    products: [
        .library(name: "JWTKernel", targets: ["JWTKernel"]),
        .library(name: "JWTKernelRemote", targets: ["JWTKernelRemote"]),
        // Swift server conventions (swift-service-lifecycle, swift-log, swift-metrics) over JWTKernelRemote;
        // the C library (jwtkc) does not link it, so libjwtk.so.0 gains no dependency.
        .library(name: "JWTKernelServer", targets: ["JWTKernelServer"]),
        .executable(name: "jwtk", targets: ["jwtk"]),
        // The C library. Not named "jwtk" (the CLI has that name); `make install PREFIX=DIR` ships it as libjwtk.so.0.
        .library(name: "jwtkc", type: .dynamic, targets: ["JWTKernelC"]),
        // Test code only (the loopback server, OpenSSL-made keys): a product so the integrations' tests share it.
        .library(name: "JWTKernelTestSupport", targets: ["JWTKernelTestSupport"]),
        // Test oracles (plain reference implementations the fast code is held to): the tests and the fuzz
        // harnesses use them; no product of the library links them.
        .library(name: "JWTKernelTestOracles", targets: ["JWTKernelTestOracles"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.6.0"),
        // Only a command plugin (`swift package generate-documentation`, scripts/docs.sh): no target depends on it,
        // so no product, and not libjwtk.so.0, links anything of it.
        .package(url: "https://github.com/swiftlang/swift-docc-plugin.git", from: "1.4.0"),
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
        .systemLibrary(
            name: "CCurl",
            pkgConfig: "libcurl",
            providers: [.apt(["libcurl4-openssl-dev"])]
        ),
        .target(
            name: "JWTKernel",
            dependencies: ["COpenSSL", "CXXHash", "CJWTKernelSIMD"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The public C header (include/jwtk.h), hand-written; the .c file only checks its layout.
        .target(name: "CJWTK"),
        // Internal C helpers for the C library (atomics, the header's version string); nothing exported.
        .target(name: "CJWTKSupport", dependencies: ["CJWTK"]),
        // The C library's implementation: every `@c @implementation` function is checked against jwtk.h.
        .target(
            name: "JWTKernelC",
            dependencies: ["JWTKernel", "JWTKernelRemote", "CJWTK", "CJWTKSupport"]
        ),
        // The only module with an HTTP client: JWKS over libcurl, and the refresher thread.
        .target(
            name: "JWTKernelRemote",
            dependencies: ["JWTKernel", "CCurl"],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        // The refresher as a ServiceLifecycle `Service`, its events through swift-log, its counters and
        // verification results through swift-metrics. Only Swift servers link it.
        .target(
            name: "JWTKernelServer",
            dependencies: [
                "JWTKernel",
                "JWTKernelRemote",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            swiftSettings: [.enableUpcomingFeature("ExistentialAny")]
        ),
        .executableTarget(
            name: "jwtk",
            dependencies: [
                "JWTKernel",
                "JWTKernelRemote",
                // Only for jwtk.h's JWTK_VERSION (`jwtk --version`): the CLI links no C library code.
                "CJWTK",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // Test code shared by the test targets and the integrations' tests (a product, so that
        // Integrations/JWTKernelIntegrationTesting can use it): the loopback HTTP(S) server, OpenSSL-made RSA keys.
        .target(
            name: "JWTKernelTestSupport",
            dependencies: ["JWTKernel"],
            path: "Tests/JWTKernelTestSupport"
        ),
        .target(name: "JWTKernelTestOracles", dependencies: ["JWTKernel"], path: "Tests/JWTKernelTestOracles"),
        .testTarget(
            name: "JWTKernelTests",
            dependencies: ["JWTKernel", "COpenSSL", "JWTKernelTestOracles"],
            resources: [.copy("Fixtures")]
        ),
        // The jwtk contract, checked from outside: the tests run the built binary as a
        // process (see Support/CLIHarness.swift), so they link no module of it.
        .testTarget(
            name: "jwtkCLITests",
            dependencies: ["COpenSSL"],
            resources: [.copy("Fixtures")]
        ),
        // jwtk.h's numbers and names against the Swift tables; C, LuaJIT and Python clients: IntegrationTests/clib/run.sh.
        .testTarget(
            name: "JWTKernelCTests",
            dependencies: ["JWTKernelC", "CJWTK", "JWTKernel", "JWTKernelRemote"]
        ),
        .testTarget(
            name: "JWTKernelRemoteTests",
            dependencies: ["JWTKernelRemote", "JWTKernel", "JWTKernelTestSupport"],
            // Server/jwks_server.py is run by path (JWTKernelTestSupport's LoopbackServer, the C and Python tests).
            exclude: ["Server"],
            resources: [.copy("Fixtures")]
        ),
        .testTarget(
            name: "JWTKernelServerTests",
            dependencies: [
                "JWTKernelServer", "JWTKernelRemote", "JWTKernel", "JWTKernelTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
    ]
)
