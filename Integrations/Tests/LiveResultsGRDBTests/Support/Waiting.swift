import Foundation

/// Polls `condition` every 20 milliseconds until it holds or `timeout` passes: a bounded wait, never a
/// sleep that a test relies on.
///
/// - Returns: Whether the condition held in time.
func eventually(
    timeout: Duration = .seconds(20), _ condition: @Sendable () async throws -> Bool
) async throws -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return try await condition()
}
