import Foundation
import LiveResults
import Synchronization
import Testing

/// Polling an update stream (`poll(whenReady:)`), as a server's stream does that waits for more than updates in
/// one task: the update when it is ready, else a handler called once, after the library's locks, when one is.
@Suite("Polled update streams", .timeLimit(.minutes(1)), .tags(.concurrent))
struct UpdatePollingTests {
    /// Counts the calls of a handler, and runs `reenter` in each (to show no lock of the library is held).
    final class Handler: Sendable {
        let calls = Atomic(0)
        let reenter: @Sendable () -> Void

        init(reenter: @escaping @Sendable () -> Void = {}) { self.reenter = reenter }

        var handler: @Sendable () -> Void {
            { [self] in
                reenter()
                calls.add(1, ordering: .sequentiallyConsistent)
            }
        }

        var count: Int { calls.load(ordering: .sequentiallyConsistent) }
    }

    func loaded() async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(FakeStore((0..<20).map { Item($0, score: $0) }))
        try await controller.performFetch()
        return controller
    }

    static func update(_ poll: ResultsUpdates<Item>.Poll) -> ResultsUpdate<Item>? {
        guard case .update(let update) = poll else { return nil }
        return update
    }

    static func isPending(_ poll: ResultsUpdates<Item>.Poll) -> Bool {
        if case .pending = poll { true } else { false }
    }

    @Test(
        "a controller's stream: the whole results at once, then pending; a change calls the handler once, after the lock"
    )
    func controllerStream() async throws {
        let controller = try await loaded()
        // Reads the controller in the handler: under the controller's lock, this would not return.
        let handler = Handler { _ = controller.version }
        let updates = controller.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        let first = try #require(Self.update(updates.poll(whenReady: handler.handler)))
        try replica.apply(first)
        #expect(Self.isPending(updates.poll(whenReady: handler.handler)))
        #expect(handler.count == 0)
        let before = controller.version
        controller.apply(.deleted(3))
        controller.apply(.deleted(4))
        // Called once for the first update queued after the poll; the second finds no handler.
        #expect(handler.count == 1)
        let next = try #require(Self.update(updates.poll(whenReady: handler.handler)))
        #expect(next.base == before)
        try replica.apply(next)
        try replica.apply(try #require(Self.update(updates.poll(whenReady: handler.handler))))
        #expect(Self.isPending(updates.poll(whenReady: handler.handler)))
        #expect(replica.version == controller.version)
        #expect(replica.fetchedObjects.map(\.id) == Array(controller.fetchedObjects).map(\.id))
        #expect(handler.count == 1)
    }

    @Test("a window's stream calls the handler after the window's lock, for a change and for a move")
    func windowStream() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(5))
        let handler = Handler { _ = window.version }
        let updates = window.updates().makeAsyncIterator()
        let replica = ResultsReplica<Item>()
        try replica.apply(try #require(Self.update(updates.poll(whenReady: handler.handler))))
        #expect(Self.isPending(updates.poll(whenReady: handler.handler)))
        controller.apply(.deleted(0))
        #expect(handler.count == 1)
        try replica.apply(try #require(Self.update(updates.poll(whenReady: handler.handler))))
        #expect(Self.isPending(updates.poll(whenReady: handler.handler)))
        window.move(to: .range(offset: 5, limit: 5))
        #expect(handler.count == 2)
        try replica.apply(try #require(Self.update(updates.poll(whenReady: handler.handler))))
        #expect(replica.fetchedObjects.map(\.id) == Array(window.fetchedObjects).map(\.id))
    }

    @Test("a stream that ends (its window closed) calls the handler, then polls as finished")
    func finished() async throws {
        let controller = try await loaded()
        let window = controller.window(.first(5))
        let handler = Handler()
        let updates = window.updates().makeAsyncIterator()
        _ = try #require(Self.update(updates.poll(whenReady: handler.handler)))
        #expect(Self.isPending(updates.poll(whenReady: handler.handler)))
        window.close()
        #expect(handler.count == 1)
        guard case .finished = updates.poll(whenReady: handler.handler) else {
            Issue.record("a closed window's stream did not poll as finished")
            return
        }
    }
}
