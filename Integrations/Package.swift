// swift-tools-version:6.0
// The integrations of LiveResults with other libraries: a package of its own, so that the root package
// `LiveResults` keeps no dependencies and only users of an integration resolve its libraries.
//
// The folders say what each target is for (README.md has a line per target):
//   Sources/     the products, one library each: what users depend on
//   Support/     what several targets share and users never import: wire formats, test and benchmark support
//   Examples/    the server example: its application (a library, so that tests start it in their process) and
//                its executable
//   Benchmarks/  the measurement tools, run by hand and smoke-tested by CI
//   Tests/       a test target per product
import PackageDescription

let package = Package(
    name: "LiveResultsIntegrations",
    // The root's platforms: an iOS app uses GRDB and the HTTP client.
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiveResultsPostgres", targets: ["LiveResultsPostgres"]),
        .library(name: "LiveResultsServing", targets: ["LiveResultsServing"]),
        .library(name: "LiveResultsHummingbird", targets: ["LiveResultsHummingbird"]),
        .library(name: "LiveResultsVapor", targets: ["LiveResultsVapor"]),
        .library(name: "LiveResultsGRDB", targets: ["LiveResultsGRDB"]),
        .library(name: "LiveResultsHTTP", targets: ["LiveResultsHTTP"]),
        .executable(name: "LiveResultsServer", targets: ["LiveResultsServer"]),
        .executable(name: "LiveResultsVaporServer", targets: ["LiveResultsVaporServer"]),
    ],
    dependencies: [
        .package(name: "LiveResults", path: "../"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.5.3"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/vapor", from: "4.122.3"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/CoreOffice/XMLCoder", from: "0.18.2"),
        // The command lines of the server example and the measurement tools.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        // The Vapor server example: Fluent's models and migrations.
        .package(url: "https://github.com/vapor/fluent", from: "4.13.0"),
        .package(url: "https://github.com/vapor/fluent-postgres-driver", from: "2.14.0"),
        // What an operator watches: the library emits through swift-metrics' API (already in the graph through
        // Hummingbird, Vapor and postgres-nio), and the example servers export it with swift-prometheus.
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    ],
    targets: [
        // MARK: Products

        .target(
            name: "LiveResultsPostgres",
            dependencies: [
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                // The change feed's replication stream: a connection of its own, after TLS when there is TLS.
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Sources/LiveResultsPostgres"
        ),
        // The serving core, written once for every framework adapter: what a live route is (a request's query and
        // its refusals, resume points, the encoders, Server-Sent Events, the limits, the stream slots) and
        // PostgREST's dialect (`select=`, `Prefer`, `Accept`, the error body, `Content-Range`, rows as JSON
        // objects, embedded rows kept live). No framework: a neutral request in, a response or a stream out
        // (HTTPTypes, NIOCore's buffers).
        .target(
            name: "LiveResultsServing",
            dependencies: [
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            path: "Sources/LiveResultsServing"
        ),
        .target(
            name: "LiveResultsHummingbird",
            dependencies: [
                "LiveResultsServing",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Sources/LiveResultsHummingbird"
        ),
        // The serving core's routes on Vapor 4: a thin adapter, as LiveResultsHummingbird is.
        .target(
            name: "LiveResultsVapor",
            dependencies: [
                "LiveResultsServing",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
            ],
            path: "Sources/LiveResultsVapor"
        ),
        .target(
            name: "LiveResultsGRDB",
            dependencies: [
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Sources/LiveResultsGRDB"
        ),
        // Typed HTTP requests in Postie's vocabulary, as fetch definitions, pages and mutations, and a client that
        // follows a live server's Server-Sent Events.
        .target(
            name: "LiveResultsHTTP",
            dependencies: [
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "XMLCoder", package: "XMLCoder"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Sources/LiveResultsHTTP"
        ),

        // MARK: Support

        // The wire formats that several targets read: JSON values and Server-Sent Events, one copy of each.
        .target(name: "LiveResultsWireSupport", path: "Support/LiveResultsWireSupport"),
        // For the tests and the measurement tools: the change-set contract checked on every delivery of a
        // controller (with the root's LiveResultsTesting, the one copy of the checker), bounded waits, a clock the
        // test advances, a temporary PostgreSQL cluster (or LIVERESULTS_POSTGRES_URL), and the one way the tests
        // serve HTTP on a real socket (HTTPTestServer, with Hummingbird).
        .target(
            name: "LiveResultsTestSupport",
            dependencies: [
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            path: "Support/LiveResultsTestSupport"
        ),

        // MARK: The server example

        // The to-do list of the root's example, served live to browsers: its application (the configuration and
        // its command line, the to-dos, the stores, the page, the REST writes), which depends on no HTTP framework,
        // and a server of it on each framework. Libraries, so that the tests can start them in their process too.
        .target(
            name: "TodoApp",
            dependencies: [
                "LiveResultsPostgres",
                "LiveResultsServing",
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            path: "Examples/TodoApp",
            // The page's source: Scripts/embed-page.py compiles it into TodoPage+Source.swift.
            exclude: ["Page/index.html"]
        ),
        .target(
            name: "TodoServer",
            dependencies: [
                "TodoApp",
                "LiveResultsHummingbird",
                "LiveResultsServing",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
            ],
            path: "Examples/TodoServer"
        ),
        .executableTarget(
            name: "LiveResultsServer",
            dependencies: [
                "TodoApp", "TodoServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/LiveResultsServer"
        ),
        // The same application on Vapor, its tables Fluent's models and migrations.
        .target(
            name: "TodoVaporServer",
            dependencies: [
                "TodoApp",
                "LiveResultsServing",
                "LiveResultsVapor",
                "LiveResultsPostgres",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "FluentPostgresDriver", package: "fluent-postgres-driver"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            path: "Examples/TodoVaporServer"
        ),
        .executableTarget(
            name: "LiveResultsVaporServer",
            dependencies: [
                "TodoApp", "TodoVaporServer", .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Examples/LiveResultsVaporServer"
        ),

        // MARK: Measurement tools

        .executableTarget(
            name: "PostgresLatency",
            dependencies: [
                "LiveResultsPostgres",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/PostgresLatency"
        ),
        // What a live source costs writers: pgbench with no source, the trigger and LISTEN, the WAL feed; with
        // --server, what the server example costs, against pg_recvlogical.
        .executableTarget(
            name: "WriterThroughput",
            dependencies: [
                "LiveResultsPostgres",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/WriterThroughput"
        ),
        // The server example under load: its process, streams to many clients, a poller, REST writes.
        .executableTarget(
            name: "ServerLoad",
            dependencies: [
                "TodoServer",
                "LiveResultsTestSupport",
                "LiveResultsWireSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/ServerLoad"
        ),
        // A rename with 1,000 live queries embedding people against 10 (the serving core's embeddings).
        .executableTarget(
            name: "EmbeddingRatios",
            dependencies: ["LiveResultsServing", .product(name: "LiveResults", package: "LiveResults")],
            path: "Benchmarks/EmbeddingRatios"
        ),
        // An update's encoding for Server-Sent Events: the serving core's writer against JSONEncoder.
        .executableTarget(
            name: "UpdateEncoding",
            dependencies: [
                "LiveResultsServing",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ],
            path: "Benchmarks/UpdateEncoding"
        ),
        // A single-row update through a change feed's reading path (pgoutput messages, the feed's own code) against
        // apply from this module.
        .executableTarget(
            name: "FeedRatios",
            dependencies: [
                "LiveResultsPostgres",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            path: "Benchmarks/FeedRatios"
        ),
        .executableTarget(
            name: "GRDBLatency",
            dependencies: [
                "LiveResultsGRDB",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/GRDBLatency"
        ),

        // MARK: Tests

        .testTarget(
            name: "LiveResultsPostgresTests",
            dependencies: [
                "LiveResultsWireSupport",
                "LiveResultsPostgres",
                "LiveResultsTestSupport",
                // The feed's lag: every value its gauges are given.
                .product(name: "MetricsTestKit", package: "swift-metrics"),
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsServingTests",
            dependencies: [
                "LiveResultsServing",
                "LiveResultsTestSupport",
                // The routes' metrics, scraped from a registry of the test's own.
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsHummingbirdTests",
            dependencies: [
                "LiveResultsWireSupport",
                "LiveResultsHummingbird",
                "LiveResultsServing",
                "LiveResultsVapor",
                "LiveResultsPostgres",
                "TodoServer",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                // The wire suite's second adapter.
                .product(name: "Vapor", package: "vapor"),
            ]
        ),
        .testTarget(
            name: "TodoVaporServerTests",
            dependencies: [
                "TodoApp",
                "TodoVaporServer",
                "LiveResultsTestSupport",
                .product(name: "Vapor", package: "vapor"),
                .product(name: "Fluent", package: "fluent"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsGRDBTests",
            dependencies: [
                "LiveResultsGRDB",
                "LiveResultsServing",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "LiveResultsHTTPTests",
            dependencies: [
                "LiveResultsHTTP",
                "TodoServer",
                "LiveResultsHummingbird",
                "LiveResultsTestSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOFoundationCompat", package: "swift-nio"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

// Every target sees only the members of the modules it imports (not those another file of it imported), so that a
// file's imports, checked against the manifest by `swift build --explicit-target-dependency-import-check error`
// in CI, are all that it uses.
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}

// `LIVERESULTS_WITHOUT_VAPOR=1` leaves out what is built on Vapor: its adapter, the Vapor example and their tests
// (the wire suite then runs against Hummingbird alone). CI's build under ThreadSanitizer sets it: Vapor, Fluent and
// their drivers would add about ten minutes to it, while the concurrency of the Vapor adapter's routes is the serving
// core's, which the sanitizer checks through the Hummingbird adapter's tests.
let vaporTargets: Set = ["LiveResultsVapor", "TodoVaporServer", "LiveResultsVaporServer", "TodoVaporServerTests"]
let vaporPackages: Set = ["vapor", "fluent", "fluent-postgres-driver"]
if Context.environment["LIVERESULTS_WITHOUT_VAPOR"] != nil {
    package.targets.removeAll { vaporTargets.contains($0.name) }
    package.products.removeAll { ["LiveResultsVapor", "LiveResultsVaporServer"].contains($0.name) }
    for target in package.targets {
        target.dependencies.removeAll { dependency in
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _): vaporTargets.contains(name)
            case .productItem(_, let dependencyPackage, _, _): vaporPackages.contains(dependencyPackage ?? "")
            @unknown default: false
            }
        }
    }
} else {
    // The wire suite's cases run against the Vapor adapter too.
    for target in package.targets where target.name == "LiveResultsHummingbirdTests" {
        target.swiftSettings = (target.swiftSettings ?? []) + [.define("LIVERESULTS_VAPOR")]
    }
}
