// swift-tools-version:6.0
// The integrations of LiveResults with other libraries, one target each. A package of its own, so that the
// root package `LiveResults` keeps no dependencies: only users of an integration resolve its libraries.
import PackageDescription

let package = Package(
    name: "LiveResultsIntegrations",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveResultsPostgres", targets: ["LiveResultsPostgres"])
    ],
    dependencies: [
        .package(name: "LiveResults", path: "../"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
    ],
    targets: [
        .target(
            name: "LiveResultsPostgres",
            dependencies: [
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Starts a temporary PostgreSQL cluster (or uses LIVERESULTS_POSTGRES_URL) for tests and benchmarks.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "PostgresLatency",
            dependencies: [
                "LiveResultsPostgres",
                "PostgresTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsPostgresTests",
            dependencies: [
                "LiveResultsPostgres",
                "PostgresTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
