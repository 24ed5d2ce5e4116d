import Foundation
import LiveResults
import Synchronization
import Testing

/// A `performFetch()` that a newer fetch supersedes (the refetch of an invalidation, or another call)
/// returns once the newest fetch has settled, so that its caller reads shown results or gets an error.
@Suite("Superseded fetches", .tags(.concurrent), .timeLimit(.minutes(2)))
struct SupersededFetchTests {
    /// A request whose calls follow a script. Call *n* (from 1) waits at its gate if it has one, reads the
    /// store, then, if the script says so, adds an item to the store and publishes `.invalidated` (its
    /// result predates the invalidation, as when a listener starts during a fetch), and fails.
    final class ScriptedSource: Sendable {
        let store = FakeStore([Item(1, score: 1), Item(2, score: 2)])
        let bus = EventBus<Item>()
        let gates: [Int: EventHarness.Gate]
        let invalidating: Set<Int>
        let failing: Set<Int>
        private let count = Atomic(0)

        init(invalidating: Set<Int> = [], gated: Set<Int> = [], failing: Set<Int> = []) {
            self.invalidating = invalidating
            self.failing = failing
            self.gates = Dictionary(uniqueKeysWithValues: gated.map { ($0, EventHarness.Gate()) })
        }

        var calls: Int { count.load(ordering: .relaxed) }

        func gate(_ call: Int) -> EventHarness.Gate { gates[call]! }

        /// A controller over the scripted request that observes the bus.
        func controller() -> (FetchedResultsController<Item>, EventSubscription) {
            let controller = FetchedResultsController(
                definition: FetchDefinition(request: { [self] in try await self.request() }),
                sortDescriptors: [SortDescriptor(\Item.score)])
            return (controller, controller.observe(bus))
        }

        private func request() async throws -> [Item] {
            let call = count.add(1, ordering: .relaxed).newValue
            if let gate = gates[call] { await gate.wait() }
            let items = try store.fetch()
            if invalidating.contains(call) {
                store.items.append(Item(10 + call, score: 10 + call))
                bus.publish(.invalidated)
            }
            if failing.contains(call) { throw FakeStore.Failure() }
            return items
        }

        /// The ids the controller must show: the store's, by score.
        var expectedIDs: [Int] { store.items.sorted { $0.score < $1.score }.map(\.id) }
    }

    /// What a caller of `performFetch()` read right after the call returned or threw.
    struct Outcome: Sendable {
        var isLoaded: Bool
        var ids: [Int]
        var error: (any Error)?
    }

    /// A `performFetch()` in a task that reads the controller right after the call ends.
    struct Call {
        let task: Task<Outcome, Never>
        let ended = EventHarness.Flag()

        init(_ controller: FetchedResultsController<Item>) {
            let ended = self.ended
            task = Task {
                defer { ended.set() }
                do {
                    try await controller.performFetch()
                    return Outcome(isLoaded: controller.state.isLoaded, ids: controller.fetchedObjects.map(\.id))
                } catch {
                    return Outcome(
                        isLoaded: controller.state.isLoaded, ids: controller.fetchedObjects.map(\.id), error: error)
                }
            }
        }

        /// Whether the call ended within a short while, before what it must wait for happened.
        func endsEarly() async -> Bool {
            await EventHarness.eventually(timeout: .milliseconds(300)) { ended.isSet }
        }

        /// Whether the call ends in time (it ends at once when cancelled or reset).
        func ends() async -> Bool {
            await EventHarness.eventually(timeout: .seconds(10)) { ended.isSet }
        }
    }

    /// Starts the first fetch of `source`'s controller, waits until the fetch that superseded it waits at the
    /// gate of call `gated`, and checks that the first fetch's call waits too.
    static func waitingFirstFetch(
        _ source: ScriptedSource, gated: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (controller: FetchedResultsController<Item>, subscription: EventSubscription, call: Call) {
        let (controller, subscription) = source.controller()
        let call = Call(controller)
        #expect(
            await EventHarness.eventually { source.gate(gated).waiters == 1 }, "the newest fetch is in flight",
            sourceLocation: sourceLocation)
        #expect(!(await call.endsEarly()), "the first call waits for the newest fetch", sourceLocation: sourceLocation)
        return (controller, subscription, call)
    }

    /// The first fetch's outcome, once the fetch that superseded it, waiting at the gate of call `gated`, is let
    /// through.
    static func firstFetchOutcome(
        _ source: ScriptedSource, gated: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (controller: FetchedResultsController<Item>, outcome: Outcome) {
        let (controller, subscription, call) = await waitingFirstFetch(
            source, gated: gated, sourceLocation: sourceLocation)
        defer { subscription.cancel() }
        source.gate(gated).open()
        return (controller, await call.task.value)
    }

    /// Checks that a call ended without an error, with the store's items shown.
    static func expectShown(
        _ outcome: Outcome, of source: ScriptedSource, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(outcome.error == nil, sourceLocation: sourceLocation)
        #expect(outcome.isLoaded, sourceLocation: sourceLocation)
        #expect(outcome.ids == source.expectedIDs, sourceLocation: sourceLocation)
    }

    @Test("an invalidation during the first fetch: performFetch() returns once the refetch shows its results")
    func invalidationDuringTheFirstFetch() async throws {
        let source = ScriptedSource(invalidating: [1], gated: [2])
        let (_, outcome) = await Self.firstFetchOutcome(source, gated: 2)
        Self.expectShown(outcome, of: source)
        #expect(outcome.ids == [1, 2, 11])
        #expect(source.calls == 2)
    }

    @Test("a chain of invalidations during fetches: performFetch() returns once the newest fetch shows its results")
    func chainOfInvalidations() async throws {
        let source = ScriptedSource(invalidating: [1, 2, 3], gated: [4])
        let (_, outcome) = await Self.firstFetchOutcome(source, gated: 4)
        Self.expectShown(outcome, of: source)
        #expect(outcome.ids == [1, 2, 11, 12, 13])
        #expect(source.calls == 4)
    }

    /// A source's `.invalidated` that waits in the inbox behind a batch another thread is still delivering (its
    /// observer blocks) when a refetch's result is ready: the result predates it, so it is dropped and the call
    /// waits for the refetch the invalidation starts. (Seen under ThreadSanitizer: the drain of one invalidation
    /// had not yet taken the next when the refetch it started returned.)
    @Test("an invalidation waiting behind a batch in delivery: the refetch's result is dropped, and its call waits")
    func invalidationWaitingInTheInbox() async throws {
        let source = ScriptedSource(invalidating: [2])
        let (controller, subscription) = source.controller()
        defer { subscription.cancel() }
        try await controller.performFetch()
        let (blocked, release) = (EventHarness.Flag(), DispatchSemaphore(value: 0))
        let (_, observation) = controller.observeChanges { _, _ in
            guard !blocked.isSet else { return }
            blocked.set()
            release.wait()
        }
        defer { observation.cancel() }
        Thread.detachNewThread { source.bus.publish(.inserted(Item(3, score: 3))) }
        #expect(await EventHarness.eventually { blocked.isSet })
        // Call 2 publishes `.invalidated`, which waits behind the blocked batch, and returns what it read before.
        let call = Call(controller)
        #expect(await EventHarness.eventually { source.calls == 2 })
        #expect(!(await call.endsEarly()), "the refetch waits for the one the invalidation starts")
        release.signal()
        let outcome = await call.task.value
        Self.expectShown(outcome, of: source)
        #expect(outcome.ids == [1, 2, 12])
        #expect(source.calls == 3)
    }

    @Test("an invalidation during every fetch but the last, ungated: performFetch() returns with the results shown")
    func chainOfInvalidationsUngated() async throws {
        let source = ScriptedSource(invalidating: Set(1...8))
        let (controller, subscription) = source.controller()
        defer { subscription.cancel() }
        try await controller.performFetch()
        #expect(controller.state.isLoaded)
        #expect(controller.fetchedObjects.map(\.id) == source.expectedIDs)
        #expect(source.calls == 9)
    }

    @Test("a concurrent performFetch() supersedes the first: the first returns once the second shows its results")
    func concurrentFetchSupersedes() async throws {
        let source = ScriptedSource(gated: [1, 2])
        let (controller, subscription) = source.controller()
        defer { subscription.cancel() }
        let first = Call(controller)
        #expect(await EventHarness.eventually { source.gate(1).waiters == 1 })
        let second = Call(controller)
        #expect(await EventHarness.eventually { source.gate(2).waiters == 1 })
        source.store.items.append(Item(3, score: 3))
        source.gate(1).open()
        #expect(!(await first.endsEarly()), "the first waits for the second")
        source.gate(2).open()

        Self.expectShown(await first.task.value, of: source)
        Self.expectShown(await second.task.value, of: source)
        #expect(controller.fetchedObjects.map(\.id) == [1, 2, 3])
    }

    @Test("a reset while a superseded performFetch() waits ends the wait: it returns, and nothing is shown")
    func resetEndsTheWait() async throws {
        let source = ScriptedSource(invalidating: [1], gated: [2])
        let (controller, subscription, call) = await Self.waitingFirstFetch(source, gated: 2)
        defer { subscription.cancel() }
        controller.reset()
        #expect(await call.ends(), "the reset ends the wait")

        let outcome = await call.task.value
        #expect(outcome.error == nil)
        #expect(!outcome.isLoaded && outcome.ids.isEmpty)
        #expect(controller.state.isIdle)
        source.gate(2).open()
    }

    @Test("a cancelled caller stops waiting at once and throws CancellationError; the newest fetch goes on")
    func cancellationEndsTheWait() async throws {
        let source = ScriptedSource(invalidating: [1], gated: [2])
        let (controller, subscription, call) = await Self.waitingFirstFetch(source, gated: 2)
        defer { subscription.cancel() }
        call.task.cancel()
        #expect(await call.ends(), "cancelling the caller ends the wait")

        let outcome = await call.task.value
        #expect(outcome.error is CancellationError)
        #expect(!outcome.isLoaded)
        source.gate(2).open()
        #expect(await EventHarness.eventually { controller.state.isLoaded })
        #expect(controller.fetchedObjects.map(\.id) == source.expectedIDs)
    }

    @Test("when the fetch that superseded it fails, the waiting caller throws that fetch's error")
    func supersedingFetchFails() async throws {
        let source = ScriptedSource(invalidating: [1], gated: [2], failing: [2])
        let (controller, outcome) = await Self.firstFetchOutcome(source, gated: 2)
        #expect(outcome.error is FakeStore.Failure)
        #expect(!outcome.isLoaded)
        guard case .failed(let error) = controller.state else {
            Issue.record("state is \(controller.state), not failed")
            return
        }
        #expect(error is FakeStore.Failure)
    }

    @Test("a superseded fetch whose own request failed returns once the newest fetch shows its results")
    func ownFailureYieldsToTheNewestFetch() async throws {
        let source = ScriptedSource(invalidating: [1], gated: [2], failing: [1])
        Self.expectShown(await Self.firstFetchOutcome(source, gated: 2).outcome, of: source)
    }
}
