// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LiveResults",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiveResults", targets: ["LiveResults"]),
        // For users' change-set unit tests: the contract checker and a recorder of live results (the
        // *TestingWithLiveResults* article).
        .library(name: "LiveResultsTesting", targets: ["LiveResultsTesting"]),
        .executable(name: "LiveResultsExample", targets: ["LiveResultsExample"]),
    ],
    targets: [
        .target(name: "LiveResults"),
        .target(name: "LiveResultsTesting", dependencies: ["LiveResults"]),
        .testTarget(name: "LiveResultsTests", dependencies: ["LiveResults", "LiveResultsTesting"]),

        // The example: a to-do list over a UserDefaults-style store (`swift run LiveResultsExample`).
        // Its code lives in a library target so that its tests can drive it; it is not a product.
        .target(name: "LiveResultsExampleKit", dependencies: ["LiveResults"], path: "Example/Kit"),
        .executableTarget(name: "LiveResultsExample", dependencies: ["LiveResultsExampleKit"], path: "Example/CLI"),
        .testTarget(name: "LiveResultsExampleTests", dependencies: ["LiveResultsExampleKit", "LiveResults"]),
    ],
    swiftLanguageModes: [.v6]
)

// Every target sees only the members of the modules its file imports (not those another file of it imported), so that
// a file's imports, checked against the manifest in CI, are all that it uses.
for target in package.targets {
    target.swiftSettings = (target.swiftSettings ?? []) + [.enableUpcomingFeature("MemberImportVisibility")]
}
