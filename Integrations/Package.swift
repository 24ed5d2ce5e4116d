// swift-tools-version:6.0
// The integrations of LiveResults with other libraries, one target each. A package of its own, so that the
// root package `LiveResults` keeps no dependencies: only users of an integration resolve its libraries.
import PackageDescription

let package = Package(
    name: "LiveResultsIntegrations",
    // The root's platforms: an iOS app uses GRDB and the HTTP client.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiveResultsPostgres", targets: ["LiveResultsPostgres"]),
        .library(name: "LiveResultsHummingbird", targets: ["LiveResultsHummingbird"]),
        .executable(name: "LiveResultsServer", targets: ["LiveResultsServer"]),
        .library(name: "LiveResultsGRDB", targets: ["LiveResultsGRDB"]),
        .library(name: "LiveResultsHTTP", targets: ["LiveResultsHTTP"]),
    ],
    dependencies: [
        .package(name: "LiveResults", path: "../"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-async-algorithms", from: "1.1.4"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/CoreOffice/XMLCoder", from: "0.18.2"),
    ],
    targets: [
        // The integrations' lock, a pthread mutex that ThreadSanitizer sees (Synchronization.Mutex it does not).
        .target(name: "LiveResultsLockSupport"),
        // The wire formats that several targets read: JSON values and Server-Sent Events, one copy of each.
        .target(name: "LiveResultsWireSupport"),
        .target(
            name: "LiveResultsPostgres",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The change feed's replication stream: a connection of its own, after TLS when there is TLS.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .target(
            name: "LiveResultsHummingbird",
            dependencies: [
                "LiveResultsLockSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "AsyncAlgorithms", package: "swift-async-algorithms"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        // The server example (the *ServingLiveResults* article): the to-do list of the first example, served live to
        // browsers. Its application is a target of its own so that the tests can start it in their process too.
        .target(
            name: "TodoServer",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsHummingbird",
                "LiveResultsPostgres",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            // The page's source: Scripts/embed-page.py compiles it into TodoPage+Source.swift.
            exclude: ["Page"]
        ),
        .executableTarget(
            name: "LiveResultsServer",
            dependencies: ["TodoServer", .product(name: "Hummingbird", package: "hummingbird")]
        ),
        // Checks the change-set contract on every delivery of a controller, for the integrations' tests, with the
        // root's LiveResultsTesting (the one copy of the checker).
        .target(
            name: "LiveResultsTestSupport",
            dependencies: [
                "LiveResultsLockSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
            ]
        ),
        // Starts a temporary PostgreSQL cluster (or uses LIVERESULTS_POSTGRES_URL) for tests and benchmarks.
        .target(
            name: "PostgresTestSupport",
            dependencies: [
                "LiveResultsLockSupport",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "PostgresLatency",
            dependencies: [
                "LiveResultsPostgres",
                "PostgresTestSupport",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // What a live source costs writers: pgbench with no source, the trigger and LISTEN, the WAL feed.
        .executableTarget(
            name: "WriterThroughput",
            dependencies: [
                "LiveResultsPostgres",
                "PostgresTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        // The server example under load: its process, streams to many clients, a poller, REST writes.
        .executableTarget(
            name: "ServerLoad",
            dependencies: [
                "TodoServer",
                "PostgresTestSupport",
                "LiveResultsLockSupport",
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsHummingbirdTests",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsWireSupport",
                "LiveResultsHummingbird",
                "TodoServer",
                "PostgresTestSupport",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsPostgresTests",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsWireSupport",
                "LiveResultsPostgres",
                "PostgresTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .target(
            name: "LiveResultsGRDB",
            dependencies: [
                "LiveResultsLockSupport",
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
                "LiveResultsLockSupport",
                "LiveResultsGRDB",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // Typed HTTP requests in Postie's vocabulary, as fetch definitions, pages and mutations, and a client that
        // follows a live server's Server-Sent Events.
        .target(
            name: "LiveResultsHTTP",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "XMLCoder", package: "XMLCoder"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsHTTPTests",
            dependencies: [
                "LiveResultsLockSupport",
                "LiveResultsHTTP",
                "TodoServer",
                "LiveResultsHummingbird",
                "PostgresTestSupport",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
