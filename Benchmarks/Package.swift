// swift-tools-version: 6.1
import PackageDescription

// The benchmark suite of LiveResults, in a package of its own so that the library stays dependency-free.
//
//   swift package --disable-sandbox benchmark     runs the package-benchmark suite
//   swift run -c release Ratios                   prints the performance targets as measured ratios
//   swift run -c release MemoryOverhead           prints the memory overhead per entity
//   swift run -c release WindowMemory             prints the memory per window and per held version
//   swift run -c release Workload events          runs one workload alone, for profilers
//   bash cachegrind.sh                            instructions and cache misses per event (valgrind)
//   swift run -c release Soak --events N --seed S  every capability at once, checked
let package = Package(
    name: "LiveResultsBenchmarks",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    dependencies: [
        // A path package is named after its folder, which differs between checkouts: `name:` fixes it.
        .package(name: "LiveResults", path: "../"),
        // Only the malloc interposer (malloc metrics without jemalloc); the default RuntimeInterposer trait is off.
        .package(url: "https://github.com/ordo-one/package-benchmark", from: "1.38.1", traits: ["MallocInterposer"]),
    ],
    targets: [
        .target(name: "CHeapInfo"),
        .target(
            name: "BenchmarkSupport",
            dependencies: [
                "CHeapInfo", .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
            ]
        ),
        .executableTarget(
            name: "LiveResultsBenchmarks",
            dependencies: [
                "BenchmarkSupport",
                .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "Benchmark", package: "package-benchmark"),
            ],
            path: "Benchmarks/LiveResultsBenchmarks",
            plugins: [.plugin(name: "BenchmarkPlugin", package: "package-benchmark")]
        ),
        .executableTarget(
            name: "Ratios",
            dependencies: ["BenchmarkSupport", .product(name: "LiveResults", package: "LiveResults")]
        ),
        .executableTarget(name: "MemoryOverhead", dependencies: ["BenchmarkSupport"]),
        .executableTarget(
            name: "Workload",
            dependencies: ["BenchmarkSupport", .product(name: "LiveResults", package: "LiveResults")]
        ),
        .executableTarget(name: "CacheProbe", dependencies: ["BenchmarkSupport"]),
        .executableTarget(
            name: "WindowMemory",
            dependencies: ["BenchmarkSupport", .product(name: "LiveResults", package: "LiveResults")]
        ),
        .executableTarget(
            name: "Soak",
            dependencies: [
                "BenchmarkSupport", .product(name: "LiveResults", package: "LiveResults"),
                .product(name: "LiveResultsTesting", package: "LiveResults"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)
