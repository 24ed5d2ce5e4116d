// swift-tools-version:6.0
// The integrations of LiveResults with other libraries, one target each. A package of its own, so that the
// root package `LiveResults` keeps no dependencies: only users of an integration resolve its libraries.
import PackageDescription

let package = Package(
    name: "LiveResultsIntegrations",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "LiveResultsPostgres", targets: ["LiveResultsPostgres"]),
        .library(name: "LiveResultsGRDB", targets: ["LiveResultsGRDB"]),
    ],
    dependencies: [
        .package(name: "LiveResults", path: "../"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
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
        .target(
            name: "LiveResultsGRDB",
            dependencies: [
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .executableTarget(
            name: "GRDBLatency",
            dependencies: [
                "LiveResultsGRDB",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        .testTarget(
            name: "LiveResultsGRDBTests",
            dependencies: [
                "LiveResultsGRDB",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
