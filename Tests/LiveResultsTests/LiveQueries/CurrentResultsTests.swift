import Foundation
import LiveResults
import Testing

/// Read-your-writes: `currentResults(for:)` synchronizes a query already live with its source, and a query it
/// fetches needs nothing more.
@Suite("Live query registry: current results", .timeLimit(.minutes(1)))
struct CurrentResultsTests {
    static let row = QueryRow(id: 1, project: "a", priority: 1, title: "x", score: 0, done: nil)

    @Test("a query fetched by the call is not synchronized; a live one is, each time")
    func synchronizesLiveQueries() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store)
        let query = try LiveQuery<QueryRow>(filters: [.equal("project", "a")])
        let first = try await registry.currentResults(for: query)
        #expect(store.synchronizations.withLock { $0 } == 0, "its fetch started after the call")
        store.write(Self.row)
        let second = try await registry.currentResults(for: query)
        #expect(store.synchronizations.withLock { $0 } == 1)
        #expect(second.controller.fetchedObjects.map(\.id) == [1])
        _ = try await registry.currentResults(for: query)
        #expect(store.synchronizations.withLock { $0 } == 2)
        withExtendedLifetime(first) {}
    }

    @Test("a synchronization that fails is LiveQuerySynchronizationError, with the source's error; the query stays")
    func failedSynchronization() async throws {
        let store = QueryRowStore()
        let registry = LiveQueryRegistry(source: store)
        let query = try LiveQuery<QueryRow>()
        let held = try await registry.currentResults(for: query)
        store.failNextSynchronization.withLock { $0 = true }
        do {
            _ = try await registry.currentResults(for: query)
            Issue.record("a failed synchronization returned results")
        } catch let error as LiveQuerySynchronizationError {
            #expect(error.underlying is QueryRowStore.StoreFailure)
        }
        #expect(registry.liveQueryCount == 1)
        _ = try await registry.currentResults(for: query)
        withExtendedLifetime(held) {}
    }
}
