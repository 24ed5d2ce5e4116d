// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "LiveResults",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "LiveResults", targets: ["LiveResults"]),
        .executable(name: "LiveResultsExample", targets: ["LiveResultsExample"]),
    ],
    targets: [
        .target(name: "LiveResults"),
        .executableTarget(name: "LiveResultsExample", dependencies: ["LiveResults"], path: "Example"),
        .testTarget(name: "LiveResultsTests", dependencies: ["LiveResults"]),
    ],
    swiftLanguageModes: [.v6]
)
