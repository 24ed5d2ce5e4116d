/// Polls `condition` every 20 milliseconds until it holds or `timeout` of polling has passed: a bounded
/// wait, never a sleep that a test relies on.
///
/// Only the time this waiter was given counts against `timeout`: when other tests' work starves the
/// cooperative pool (one thread per core, two on the development machine), a poll that comes back seconds
/// late counts as one short poll. A loaded machine then slows the wait down instead of failing it, and a
/// condition that never holds still fails after about `timeout`.
///
/// - Returns: Whether the condition held in time.
@discardableResult
public func eventually(
    timeout: Duration = .seconds(20), isolation: isolated (any Actor)? = #isolation,
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    var left = timeout
    let step = Duration.milliseconds(20)
    let clock = ContinuousClock()
    while left > .zero, !Task.isCancelled {
        if try await condition() { return true }
        let start = clock.now
        try? await Task.sleep(for: step)
        left -= min(start.duration(to: clock.now), step * 20)
    }
    return try await condition()
}
