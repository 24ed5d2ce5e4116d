/// `body`'s result, or ``HTTPAPIError/timedOut(_:)`` of `timeout` once `timeout` has passed since `start`; `body`
/// is then cancelled, and this waits for it to end (the transports' bodies end when cancelled).
///
/// The one deadline of both transports' ``HTTPTransport/send(_:)``, for the part of an exchange their networking
/// libraries do not bound: the body after the head.
func _racingDeadline<Value: Sendable>(
    of timeout: Duration, since start: ContinuousClock.Instant, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    try await withThrowingTaskGroup(of: Value.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(until: start + timeout, clock: .continuous)
            throw HTTPAPIError.timedOut(timeout)
        }
        defer { group.cancelAll() }
        guard let first = try await group.next() else { throw CancellationError() }
        return first
    }
}
