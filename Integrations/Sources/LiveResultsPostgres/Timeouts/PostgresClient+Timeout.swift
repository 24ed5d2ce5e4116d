import PostgresNIO

extension PostgresClient {
    /// How long ``PostgresLiveTable`` and ``withTimeout(_:_:)`` wait for PostgreSQL by default: 10 seconds.
    public static var defaultQueryTimeout: Duration { .seconds(10) }

    /// Runs `operation` with this client and returns its result, or throws
    /// ``PostgresLiveTableError/timedOut(after:)`` once `timeout` has passed, without waiting any longer
    /// for `operation` to end.
    ///
    /// Use it for every query an application sends, so that a request never waits for PostgreSQL without
    /// a bound:
    ///
    /// ```swift
    /// let rows = try await client.withTimeout(.seconds(5)) { client in
    ///     try await client.query("SELECT id FROM todos WHERE id = \(id)").collect()
    /// }
    /// ```
    ///
    /// The operation runs in a task of its own, which is cancelled at the timeout and then left to end
    /// when it can. Waiting for it would not bound anything: postgres-nio 1.33 can leave a query's promise
    /// uncompleted for ever when the server closed the connection the pool handed out (a restart under
    /// load), and that wait ignores cancellation. Read the rows inside `operation`: a row sequence read
    /// after it returns is not bounded.
    ///
    /// - Parameters:
    ///   - timeout: The longest wait; ``defaultQueryTimeout`` by default.
    ///   - operation: The queries to run, given this client.
    /// - Returns: What `operation` returned.
    /// - Throws: `operation`'s error, ``PostgresLiveTableError/timedOut(after:)``, or `CancellationError`
    ///   when the calling task is cancelled first.
    /// - Complexity: Two tasks (the operation and its timer) besides `operation`'s own work.
    public func withTimeout<Result: Sendable>(
        _ timeout: Duration = PostgresClient.defaultQueryTimeout,
        _ operation: @escaping @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        let outcome = _Latch<Swift.Result<Result, any Error>>()
        let work = Task { [self] in
            do {
                outcome.open(with: .success(try await operation(self)))
            } catch {
                outcome.open(with: .failure(error))
            }
        }
        let timer = Task {
            // A cancelled sleep throws: the operation ended first, and the timer has nothing to say.
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            outcome.open(with: .failure(PostgresLiveTableError.timedOut(after: timeout)))
        }
        let result = await outcome.value(orOnCancellation: .failure(CancellationError()))
        work.cancel()
        timer.cancel()
        return try result.get()
    }
}
