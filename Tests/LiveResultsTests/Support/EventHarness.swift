import Foundation
import LiveResults
import Synchronization
import Testing

enum EventHarness {
    /// The error of a payload that could not be decoded.
    struct DecodingError: Error, Equatable {
        var payload: String
    }

    /// Collects what a controller reports to its `diagnostics` handler.
    final class DiagnosticLog: Sendable {
        private let entries = Locked<[ControllerDiagnostic<Item>]>([])

        var handler: @Sendable (ControllerDiagnostic<Item>) -> Void {
            { [self] diagnostic in entries.withLock { $0.append(diagnostic) } }
        }

        var all: [ControllerDiagnostic<Item>] { entries.withLock { $0 } }

        var ignoredCounts: [Int] {
            all.compactMap { if case .eventsIgnored(let count) = $0 { count } else { nil } }
        }

        var fetchFailures: [any Error] {
            all.compactMap { if case .fetchFailed(let error) = $0 { error } else { nil } }
        }

        var cacheLoadFailures: [any Error] {
            all.compactMap { if case .cacheLoadFailed(let error) = $0 { error } else { nil } }
        }

        var cacheSaveFailures: [any Error] {
            all.compactMap { if case .cacheSaveFailed(let error) = $0 { error } else { nil } }
        }

        var sourceFailures: [any Error] {
            all.compactMap { if case .sourceFailed(let error) = $0 { error } else { nil } }
        }

        var malformedPayloads: [String?] {
            all.compactMap {
                if case .malformedEvent(let error) = $0 { (error as? DecodingError)?.payload } else { nil }
            }
        }

        var duplicateIDs: [[Int]] {
            all.compactMap { if case .duplicateIDsInFetchResult(let ids) = $0 { ids } else { nil } }
        }
    }

    /// A delegate that records every delivered change set with the snapshot after it, and can check
    /// that they chain: each one, applied to the snapshot before it, gives the snapshot after it.
    final class ChainRecorder<Entity: FetchableEntity>: FetchedResultsControllerDelegate, Sendable {
        typealias Hook = @Sendable (FetchedResultsController<Entity>, ChangeSet<Entity>) -> Void
        typealias Delivery = (changes: ChangeSet<Entity>, after: SnapshotModel<Entity>)

        private let state: Locked<(initial: SnapshotModel<Entity>, deliveries: [Delivery], hook: Hook?)>

        init(initial: SnapshotModel<Entity>, hook: Hook? = nil) {
            state = Locked((initial, [], hook))
        }

        /// Forgets the deliveries so far; the chain starts again from `initial`.
        func restart(from initial: SnapshotModel<Entity>) {
            state.withLock { $0 = (initial, [], $0.hook) }
        }

        /// Runs after each delivery is recorded, inside `didChangeContent`.
        func setHook(_ hook: Hook?) { state.withLock { $0.hook = hook } }

        var deliveries: [Delivery] { state.withLock { $0.deliveries } }
        var changeSets: [ChangeSet<Entity>] { deliveries.map(\.changes) }
        var deliveryCount: Int { state.withLock { $0.deliveries.count } }

        func controller(
            _ controller: FetchedResultsController<Entity>,
            didChangeContentWith changes: ChangeSet<Entity>,
            snapshot: FetchedResultsSnapshot<Entity>
        ) {
            let after = SnapshotModel(snapshot)
            let hook = state.withLock { state in
                state.deliveries.append((changes, after))
                return state.hook
            }
            hook?(controller, changes)
        }

        /// Checks the contract and the item counts of every delivery against the one before it.
        ///
        /// With `associations`, updates of entities whose content did not change are allowed: their
        /// associated values arrived or were dropped.
        func expectChain(associations: Bool = false, sourceLocation: SourceLocation = #_sourceLocation) {
            let (initial, deliveries) = state.withLock { ($0.initial, $0.deliveries) }
            var before = initial
            for delivery in deliveries {
                expectContract(
                    delivery.changes, from: before, to: delivery.after,
                    alsoUpdated: associations ? Set(delivery.changes.updatedItemIDs) : [],
                    sourceLocation: sourceLocation)
                let expected =
                    before.itemCount + delivery.changes.insertedItems.count - delivery.changes.deletedItems.count
                #expect(delivery.after.itemCount == expected, sourceLocation: sourceLocation)
                before = delivery.after
            }
        }
    }

    /// A request gate: the fetch waits in it until the test opens it.
    final class Gate: Sendable {
        private let state = Locked<(isOpen: Bool, waiting: [CheckedContinuation<Void, Never>])>((false, []))

        var waiters: Int { state.withLock { $0.waiting.count } }

        func wait() async {
            await withCheckedContinuation { continuation in
                let passes = state.withLock { state in
                    if !state.isOpen { state.waiting.append(continuation) }
                    return state.isOpen
                }
                if passes { continuation.resume() }
            }
        }

        func open() {
            let waiting = state.withLock { state in
                state.isOpen = true
                defer { state.waiting = [] }
                return state.waiting
            }
            waiting.forEach { $0.resume() }
        }

        func close() { state.withLock { $0.isOpen = false } }
    }

    /// A flag set once, from any thread.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .acquiring) }
        func set() { value.store(true, ordering: .releasing) }
    }

    /// A controller over a fake store with the reference model it must agree with. The controller is
    /// sectioned by `section`, sorted by `score`, and shows the items with a score of at least 0.
    struct Fixture {
        static let seed = [
            Item(1, section: "a", score: 10), Item(2, section: "a", score: 20), Item(3, section: "b", score: 10),
            Item(4, section: "b", score: 30), Item(5, section: "a", score: 20),
        ]
        static let isIncluded: @Sendable (Item) -> Bool = { $0.score >= 0 }

        let store: FakeStore
        let log: DiagnosticLog
        let controller: FetchedResultsController<Item>
        let recorder = ChainRecorder<Item>(initial: SnapshotModel(sections: []))
        var reference = ReferenceModel(isIncluded: Fixture.isIncluded)

        init(_ items: [Item] = seed, isIncluded: @escaping @Sendable (Item) -> Bool = Fixture.isIncluded) {
            let log = DiagnosticLog()
            self.log = log
            store = FakeStore(items)
            controller = .make(store, isIncluded: isIncluded, diagnostics: log.handler)
            reference = ReferenceModel(isIncluded: isIncluded)
            controller.delegate = recorder
        }

        /// A fixture whose request waits in `gate` before reading the store.
        init(_ items: [Item] = seed, request gate: Gate) {
            let store = FakeStore(items)
            let log = DiagnosticLog()
            self.store = store
            self.log = log
            let definition = FetchDefinition<Item>(
                request: {
                    await gate.wait()
                    return try store.fetch()
                },
                isIncluded: Fixture.isIncluded
            )
            controller = FetchedResultsController(
                definition: definition, sortDescriptors: [SortDescriptor(\Item.score)],
                sectionNameKeyPath: \Item.section, diagnostics: log.handler
            )
            controller.delegate = recorder
        }

        static func loaded(
            _ items: [Item] = seed, isIncluded: @escaping @Sendable (Item) -> Bool = Fixture.isIncluded
        ) async throws -> Fixture {
            var fixture = Fixture(items, isIncluded: isIncluded)
            try await fixture.fetch()
            fixture.recorder.restart(from: fixture.model)
            return fixture
        }

        var model: SnapshotModel<Item> { SnapshotModel(controller.snapshot) }

        /// Fetches, checks the change set, and fetches the store's items into the reference too.
        @discardableResult
        mutating func fetch(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeSet<Item> {
            let before = model
            let changes = try await controller.performFetch()
            expectContract(changes, from: before, to: model, sourceLocation: sourceLocation)
            reference.fetch(store.items)
            expectMatchesReference(sourceLocation: sourceLocation)
            return changes
        }

        /// Applies a batch to the controller and the reference, and checks the change set and the result.
        @discardableResult
        mutating func apply(_ events: [EntityEvent<Item>], sourceLocation: SourceLocation = #_sourceLocation)
            -> ChangeSet<Item>
        {
            let before = model
            let changes = controller.apply(events)
            expectContract(changes, from: before, to: model, sourceLocation: sourceLocation)
            events.forEach { reference.apply($0) }
            expectMatchesReference(sourceLocation: sourceLocation)
            return changes
        }

        mutating func reset(sourceLocation: SourceLocation = #_sourceLocation) -> ChangeSet<Item> {
            let before = model
            let changes = controller.reset()
            expectContract(changes, from: before, to: model, sourceLocation: sourceLocation)
            reference.fetch([])
            return changes
        }

        func expectMatchesReference(sourceLocation: SourceLocation = #_sourceLocation) {
            let expected = reference.snapshot
            #expect(model == expected, "controller \(model) ≠ reference \(expected)", sourceLocation: sourceLocation)
        }
    }

    /// Polls `condition` until it holds or `timeout` of polling has passed; returns whether it held.
    ///
    /// Only the time this waiter was given counts against `timeout`: when other tests' work starves the
    /// cooperative pool (one thread per core, two here), a poll that comes back seconds late counts as
    /// one short poll. A loaded machine then slows the wait down instead of failing it, and a condition
    /// that never holds still fails after about `timeout`.
    static func eventually(
        timeout: Duration = .seconds(10), isolation: isolated (any Actor)? = #isolation, _ condition: () -> Bool
    ) async -> Bool {
        var patience = Patience(timeout)
        while !patience.isExhausted {
            if condition() { return true }
            await patience.wait(.milliseconds(1))
        }
        return condition()
    }

    /// Sleeps until `timeout` of the time this task was given has passed (see ``eventually``).
    static func sleep(patiently timeout: Duration) async {
        var patience = Patience(timeout)
        while !patience.isExhausted { await patience.wait(.milliseconds(10)) }
    }

    /// A budget of waiting that a late wake-up spends only a little of: a starved pool delays, not fails.
    struct Patience {
        private var left: Duration

        init(_ timeout: Duration) { left = timeout }

        /// Spent, or the waiting task was cancelled (when `Task.sleep` no longer waits).
        var isExhausted: Bool { left <= .zero || Task.isCancelled }

        mutating func wait(_ step: Duration) async {
            let clock = ContinuousClock()
            let start = clock.now
            try? await Task.sleep(for: step)
            left -= min(start.duration(to: clock.now), step * 20)
        }
    }

    /// Runs `work` on a dispatch thread; returns whether it finished in time (not, if it deadlocked).
    static func finishes(within timeout: Duration = .seconds(10), _ work: @escaping @Sendable () -> Void) async -> Bool
    {
        let done = Flag()
        DispatchQueue.global().async {
            work()
            done.set()
        }
        return await eventually(timeout: timeout) { done.isSet }
    }

    /// Runs `work(0)` … `work(count - 1)` in parallel on dispatch threads, and waits for them without
    /// holding a thread of the cooperative pool (which has one thread per core).
    static func onThreads(_ count: Int, _ work: @escaping @Sendable (Int) -> Void) async {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                DispatchQueue.concurrentPerform(iterations: count, execute: work)
                continuation.resume()
            }
        }
    }

    /// The first `count` elements of `stream`, or fewer if they do not arrive in time.
    static func collect<Element: Sendable>(
        _ count: Int, from stream: some AsyncSequence<Element, Never> & Sendable, timeout: Duration = .seconds(10)
    ) async -> [Element] {
        await withTaskGroup(of: [Element]?.self) { group in
            group.addTask {
                var elements: [Element] = []
                guard count > 0 else { return elements }
                for await element in stream {
                    elements.append(element)
                    if elements.count == count { break }
                }
                return elements
            }
            group.addTask {
                await EventHarness.sleep(patiently: timeout)
                return nil
            }
            defer { group.cancelAll() }
            while let result = await group.next() {
                if let result { return result }
                group.cancelAll()
            }
            return []
        }
    }
}

extension SnapshotModel {
    var itemCount: Int { sections.reduce(0) { $0 + $1.items.count } }
}
