import NIOConcurrencyHelpers
import PostgresNIO

/// Runs the feed's queries on the connection it holds, failing them when the connection closes before they are
/// answered.
///
/// postgres-nio (1.33) never answers a query written to a connection that has already closed (the server ended
/// it, a restart): its promise is never completed, and a caller awaiting it waits forever. The notifications'
/// listener avoids that by waiting for the close itself; the feed queries its connection every interval, so
/// each query runs in a task of its own and is awaited through a latch that the connection's close also opens.
/// The close callback is registered once per connection, not once per query.
final class _ClosedConnectionGuard: Sendable {
    /// The connection closed before the query was answered.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the change feed's connection closed" }
    }

    private typealias Answer = Result<[PostgresRow], any Error>

    private let connection: PostgresConnection
    /// Whether the connection closed, and the latch of the query being awaited.
    private let state = NIOLockedValueBox<(closed: Bool, current: _Latch<Answer>?)>((false, nil))

    init(_ connection: PostgresConnection) {
        self.connection = connection
        connection.closeFuture.whenComplete { [state] _ in
            let current = state.withLockedValue { state in
                state.closed = true
                return state.current
            }
            current?.open(with: .failure(Closed()))
        }
    }

    /// Runs `query` and reads its rows; throws ``Closed`` when the connection closes first.
    ///
    /// The rows are read in the query's task too: a connection the server ends while its rows stream can leave
    /// that stream waiting for ever as well (seen when the feed's connection was terminated under load).
    @discardableResult
    func query(_ query: PostgresQuery) async throws -> [PostgresRow] {
        let latch = _Latch<Answer>()
        let closed = state.withLockedValue { state in
            state.current = latch
            return state.closed
        }
        guard !closed else { throw Closed() }
        Task { [connection] in
            do {
                latch.open(with: .success(try await connection.query(query, logger: _silentLogger).collect()))
            } catch {
                latch.open(with: .failure(error))
            }
        }
        return try await latch.value(orOnCancellation: .failure(CancellationError())).get()
    }
}
