import Dispatch
import Foundation
import LiveResults
import Testing

/// The delegate, the `changes` sequence and the callback scheduler (the *ChangeSetContract* and
/// *ConcurrencyAndDelivery* articles).
@Suite("Observers", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ObserverTests {
    typealias Fixture = ScenarioFixture

    /// On a: 1, 2, 3 | b: 4 | c: 5, 6: deletes section b, inserts section d, renames 2 in place and
    /// raises 1 past it, giving a: 2, 1, 3 | c: 5, 6 | d: 7.
    static let mixedBatch: [EntityEvent<Item>] = [
        .deleted(4),
        .inserted(Item(7, section: "d", score: 1)),
        .updated(Item(2, section: "a", score: 20, title: "t")),
        .updated(Item(1, section: "a", score: 25)),
    ]

    static var mixedChanges: ChangeSet<Item> {
        var changes = ChangeSet<Item>()
        (changes.deletedSections, changes.deletedSectionNames) = ([1], ["b"])
        (changes.insertedSections, changes.insertedSectionNames) = ([2], ["d"])
        (changes.deletedItems, changes.deletedItemIDs) = ([ip(1, 0)], [4])
        (changes.insertedItems, changes.insertedItemIDs) = ([ip(2, 0)], [7])
        (changes.movedItems, changes.movedItemIDs) = ([ItemMove(from: ip(0, 0), to: ip(0, 1))], [1])
        (changes.updatedItems, changes.updatedItemIDs) = ([ip(0, 0), ip(0, 1)], [2, 1])
        return changes
    }

    private func loaded() async throws -> Fixture {
        try await Fixture(Fixture.sample).loaded()
    }

    // MARK: Delegate

    @Test func delegateReceivesWillChangeSectionsItemsThenDidChange() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply(Self.mixedBatch)
        #expect(changes == Self.mixedChanges)
        let expected: [CallShape] = [
            .willChange,
            .section(.delete(1), "b"), .section(.insert(2), "d"),
            .item(.delete(ip(1, 0)), 4), .item(.insert(ip(2, 0)), 7),
            .item(.move(from: ip(0, 0), to: ip(0, 1)), 1),
            .item(.update(ip(0, 0)), 2), .item(.update(ip(0, 1)), 1),
            .didChange(changes),
        ]
        #expect(fixture.recorder.calls.map(CallShape.init) == expected)
    }

    @Test func changeSetAccessorsListEveryChangeWithItsID() async throws {
        var fixture = try await loaded()
        let changes = fixture.apply(Self.mixedBatch)
        #expect(changes.sectionChanges.map(\.kind) == [.delete(1), .insert(2)])
        #expect(changes.sectionChanges.map(\.name) == ["b", "d"])
        let expectedKinds: [ItemChange<Item>.Kind] = [
            .delete(ip(1, 0)), .insert(ip(2, 0)), .move(from: ip(0, 0), to: ip(0, 1)), .update(ip(0, 0)),
            .update(ip(0, 1)),
        ]
        #expect(changes.itemChanges.map(\.kind) == expectedKinds)
        #expect(changes.itemChanges.map(\.id) == [4, 7, 1, 2, 1])
    }

    @Test func delegateIsHeldWeakly() async throws {
        var fixture = try await loaded()
        weak var released: ChangeRecorder<Item>?
        do {
            let recorder = ChangeRecorder<Item>()
            fixture.controller.delegate = recorder
            released = recorder
        }
        #expect(released == nil)
        #expect(fixture.controller.delegate == nil)
        #expect(fixture.apply([.deleted(1)]).deletedItemIDs == [1])
    }

    // MARK: changes

    @Test func changesDeliversEveryNonEmptyChangeSetOnceInOrder() async throws {
        var fixture = try await loaded()
        let stream = fixture.controller.changes
        let first = fixture.apply([.deleted(1)])
        #expect(fixture.apply([.deleted(99)]).isEmpty)
        let second = fixture.apply([.inserted(Item(7, section: "a"))])
        let third = fixture.apply([.deleted(7)])
        #expect(await EventHarness.collect(3, from: stream) == [first, second, third])
    }

    @Test func twoSubscriptionsBothReceiveEveryChangeSet() async throws {
        var fixture = try await loaded()
        let (one, two) = (fixture.controller.changes, fixture.controller.changes)
        let sent = [fixture.apply([.deleted(1)]), fixture.apply([.deleted(2)])]
        #expect(await EventHarness.collect(2, from: one) == sent)
        #expect(await EventHarness.collect(2, from: two) == sent)
    }

    @Test func laterSubscriptionDoesNotSeeEarlierChangeSets() async throws {
        var fixture = try await loaded()
        fixture.apply([.deleted(1)])
        let stream = fixture.controller.changes
        let later = fixture.apply([.deleted(2)])
        #expect(await EventHarness.collect(1, from: stream) == [later])
    }

    // MARK: Re-entrancy

    @Test func callbackCanReadTheController() async throws {
        var fixture = try await loaded()
        let reads = Reads()
        let reader = ChangeRecorder<Item> { controller, changes in
            let inserted = changes.insertedItems.first.map { controller.object(at: $0) }
            reads.record(SnapshotModel(controller.snapshot), inserted, controller.sections.count)
        }
        fixture.controller.delegate = reader
        fixture.apply([.inserted(Item(7, section: "e"))])
        let read = try #require(reads.all.first)
        #expect(read.inserted == Item(7, section: "e"))
        #expect(read.model == fixture.model)
        #expect(read.sectionCount == 4)
    }

    @Test func eventsAppliedFromInsideACallbackAreDeliveredAfterTheOuterChangeSet() async throws {
        let fixture = try await loaded()
        let before = fixture.model
        let inner = Reentry(events: [.deleted(6)])
        let recorder = ChangeRecorder<Item> { controller, _ in inner.applyOnce(to: controller) }
        fixture.controller.delegate = recorder
        let stream = fixture.controller.changes
        let outer = fixture.controller.apply([.deleted(1)])
        let (middle, innerChanges) = try #require(inner.result)
        expectContract(outer, from: before, to: middle)
        expectContract(innerChanges, from: middle, to: SnapshotModel(fixture.controller.snapshot))
        #expect(innerChanges.deletedItemIDs == [6])
        #expect(recorder.changeSets == [outer, innerChanges])
        #expect(recorder.calls.map(CallShape.init).filter { $0 == .willChange }.count == 2)
        #expect(
            inner.steps == [.callback, .innerApplyReturned, .callback],
            "the inner change set waits for the outer callback")
        #expect(await EventHarness.collect(2, from: stream) == [outer, innerChanges])
    }

    /// A callback that applies many events builds a backlog behind itself; it drains in mutation order,
    /// and a change set after the backlog is delivered too.
    @Test func backlogFromInsideACallbackDrainsInOrder() async throws {
        let fixture = try await loaded()
        let backlog = Backlog(events: (100..<300).map { .inserted(Item($0, section: "a", score: $0)) })
        let recorder = ChangeRecorder<Item> { controller, _ in backlog.applyOnce(to: controller) }
        fixture.controller.delegate = recorder
        let outer = fixture.controller.apply(.deleted(1))
        let inner = backlog.changeSets
        #expect(inner.count == 200)
        #expect(recorder.changeSets == [outer] + inner)
        let after = fixture.controller.apply(.deleted(2))
        #expect(recorder.changeSets == [outer] + inner + [after])
    }

    // MARK: Scheduler

    @Test func asyncSchedulerDeliversInOrderOnItsQueue() async throws {
        var fixture = try await loaded()
        let queue = DispatchQueue(label: "ObserverTests.callbacks")
        let probe = QueueProbe(queue: queue)
        fixture.controller.delegate = probe
        fixture.controller.callbackScheduler = .async(onQueue: queue)
        queue.suspend()
        let sent = [
            fixture.apply([.deleted(1)]), fixture.apply([.deleted(4)]),
            fixture.apply([.inserted(Item(9, section: "a"))]),
        ]
        #expect(probe.deliveries.isEmpty, "callbacks wait for their queue")
        queue.resume()
        await withCheckedContinuation { continuation in queue.async { continuation.resume() } }
        #expect(probe.deliveries.map(\.changes) == sent)
        #expect(probe.deliveries.map(\.onQueue) == [true, true, true])
    }

    /// Cancels its subscription when it goes: a view or a model that observes the same results.
    final class Owner: Sendable {
        let subscription: EventSubscription
        init(_ subscription: EventSubscription) { self.subscription = subscription }
        deinit { subscription.cancel() }
    }

    /// A handler's captures may be the last references to an object whose deinit cancels its own subscription
    /// of the same results: cancelling the handler must release them after the lock it takes, not under it.
    @Test(arguments: ["controller", "window", "collapsible"])
    func cancellingAHandlerReleasesItsCapturesOutsideTheLock(kind: String) async throws {
        let controller = FetchedResultsController.make(FakeStore((0..<6).map { Item($0, section: "a", score: $0) }))
        try await controller.performFetch()
        let window = controller.window(.first(3))
        let collapsible = CollapsibleSections(controller)
        func observe(_ handler: @escaping @Sendable () -> Void) -> EventSubscription {
            switch kind {
            case "window": window.observeChanges { _, _ in handler() }.subscription
            case "collapsible": collapsible.observeChanges { _, _ in handler() }.subscription
            default: controller.observeChanges { _, _ in handler() }.subscription
            }
        }
        var owner: Owner? = Owner(observe {})
        let outer = Locked<EventSubscription?>(nil)
        outer.withLock { [owner] in $0 = observe { _ = owner } }
        owner = nil
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            outer.withLock { $0 }?.cancel()
            done.signal()
        }
        guard done.wait(timeout: .now() + 10) == .success else {
            Issue.record("cancelling the handler deadlocked")
            // The lock stays taken: the results are leaked rather than released into it.
            _ = (Unmanaged.passRetained(controller), Unmanaged.passRetained(window))
            _ = Unmanaged.passRetained(collapsible)
            return
        }
    }
}

/// A delegate call, comparable (`SectionChange` and `ItemChange` have no public initializers).
private enum CallShape: Equatable {
    case willChange
    case section(SectionChange.Kind, String)
    case item(ItemChange<Item>.Kind, Int)
    case didChange(ChangeSet<Item>)

    init(_ call: ChangeRecorder<Item>.Call) {
        switch call {
        case .willChange: self = .willChange
        case .section(let change): self = .section(change.kind, change.name)
        case .item(let change): self = .item(change.kind, change.id)
        case .didChange(let changes): self = .didChange(changes)
        }
    }
}

/// What a callback read from the controller.
private final class Reads: Sendable {
    typealias Read = (model: SnapshotModel<Item>, inserted: Item?, sectionCount: Int)
    private let reads = Locked<[Read]>([])

    func record(_ model: SnapshotModel<Item>, _ inserted: Item?, _ sectionCount: Int) {
        reads.withLock { $0.append((model, inserted, sectionCount)) }
    }

    var all: [Read] { reads.withLock { $0 } }
}

/// Applies a batch from inside the first callback only, and keeps the snapshot it saw, the change set
/// it caused, and a log of callbacks and of the inner `apply` returning.
private final class Reentry: Sendable {
    enum Step: Equatable {
        case callback
        case innerApplyReturned
    }

    private let events: [EntityEvent<Item>]
    private let state = Locked<(steps: [Step], result: (SnapshotModel<Item>, ChangeSet<Item>)?)>(([], nil))

    init(events: [EntityEvent<Item>]) {
        self.events = events
    }

    var result: (SnapshotModel<Item>, ChangeSet<Item>)? { state.withLock { $0.result } }
    var steps: [Step] { state.withLock { $0.steps } }

    func applyOnce(to controller: FetchedResultsController<Item>) {
        let first = state.withLock { state in
            defer { state.steps.append(.callback) }
            return state.steps.isEmpty
        }
        guard first else { return }
        let seen = SnapshotModel(controller.snapshot)
        let changes = controller.apply(events)
        state.withLock { $0 = ($0.steps + [.innerApplyReturned], (seen, changes)) }
    }
}

/// A delegate that records each change set and whether it arrived on `queue`.
private final class QueueProbe: FetchedResultsControllerDelegate, Sendable {
    private let key = DispatchSpecificKey<Bool>()
    private let received = Locked<[(changes: ChangeSet<Item>, onQueue: Bool)]>([])

    init(queue: DispatchQueue) {
        queue.setSpecific(key: key, value: true)
    }

    var deliveries: [(changes: ChangeSet<Item>, onQueue: Bool)] { received.withLock { $0 } }

    func controller(
        _ controller: FetchedResultsController<Item>,
        didChangeContentWith changes: ChangeSet<Item>,
        snapshot: FetchedResultsSnapshot<Item>
    ) {
        let onQueue = DispatchQueue.getSpecific(key: key) == true
        received.withLock { $0.append((changes, onQueue)) }
    }
}

/// Applies its events one at a time from inside the first callback, recording each change set.
private final class Backlog: Sendable {
    private let events: [EntityEvent<Item>]
    private let state = Locked<(started: Bool, changeSets: [ChangeSet<Item>])>((false, []))

    init(events: [EntityEvent<Item>]) {
        self.events = events
    }

    var changeSets: [ChangeSet<Item>] { state.withLock { $0.changeSets } }

    func applyOnce(to controller: FetchedResultsController<Item>) {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        for event in events {
            let changes = controller.apply(event)
            state.withLock { $0.changeSets.append(changes) }
        }
    }
}
