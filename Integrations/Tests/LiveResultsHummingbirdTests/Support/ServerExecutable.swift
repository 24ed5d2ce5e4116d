import Foundation
import LiveResultsTestSupport
import Testing

/// The server example's executables, built beside the tests: one application, on Hummingbird and on Vapor. A
/// test of the process as users run it takes them as its arguments, so that both pass the same checks.
enum ServerExecutable: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case hummingbird = "LiveResultsServer"
    case vapor = "LiveResultsVaporServer"

    var testDescription: String { rawValue }

    /// Two processes on one database: both of each executable, and one of each (the clients of either see the
    /// same versions, whichever framework serves them).
    static let pairs: [[ServerExecutable]] = [
        [.hummingbird, .hummingbird], [.vapor, .vapor], [.hummingbird, .vapor],
    ]

    /// The executable the package built beside the test bundle.
    var url: URL {
        get throws {
            let directory = Bundle.main.bundleURL.deletingLastPathComponent()
            for candidate in [directory, Bundle.main.bundleURL] {
                let url = candidate.appendingPathComponent(rawValue)
                if FileManager.default.isExecutableFile(atPath: url.path) { return url }
            }
            throw TestFailure(
                "\(rawValue) is not built beside the tests in \(directory.path): run `swift build --package-path Integrations --build-tests` first"
            )
        }
    }
}
