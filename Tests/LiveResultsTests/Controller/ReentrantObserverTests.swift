import Foundation
import LiveResults
import Testing

/// Observers that call back into the controller from their callbacks, and observers added or removed
/// while a delivery is under way (bad input): nothing deadlocks, every observer's change
/// sets chain from the snapshot it started with, and a removed observer hears nothing more.
@Suite("Re-entrant observers", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ReentrantObserverTests {
    /// The change sets a handler received, with the snapshot after each, checked as a chain.
    final class Chain: Sendable {
        private let state: Locked<(start: SnapshotModel<Item>, steps: [(ChangeSet<Item>, SnapshotModel<Item>)])>

        init(start: FetchedResultsSnapshot<Item>) {
            state = Locked((SnapshotModel(start), []))
        }

        func record(_ changes: ChangeSet<Item>, _ snapshot: FetchedResultsSnapshot<Item>) {
            let after = SnapshotModel(snapshot)
            state.withLock { $0.steps.append((changes, after)) }
        }

        var changeSets: [ChangeSet<Item>] { state.withLock { $0.steps.map(\.0) } }

        /// Each change set turns the snapshot before it into the one after it; the last is `end`.
        func expectChain(endingAt end: SnapshotModel<Item>, sourceLocation: SourceLocation = #_sourceLocation) {
            let (start, steps) = state.withLock { ($0.start, $0.steps) }
            var before = start
            for (changes, after) in steps {
                expectContract(changes, from: before, to: after, sourceLocation: sourceLocation)
                before = after
            }
            #expect(before == end, sourceLocation: sourceLocation)
        }
    }

    private func loaded() async throws -> FetchedResultsController<Item> {
        let controller = FetchedResultsController.make(FakeStore(ScenarioFixture.sample))
        try await controller.performFetch()
        return controller
    }

    /// A handler that, from its callbacks, reads the controller, applies events, pauses and resumes, and
    /// finally cancels its own subscription; a second handler and a delegate watch the same deliveries.
    @Test func aHandlerThatReadsAppliesPausesResumesAndRemovesItself() async throws {
        let controller = try await loaded()
        let calls = Locked(0)
        let own = Locked<EventSubscription?>(nil)
        let (start, subscription) = controller.observeChanges { changes, snapshot in
            let call = calls.withLock { count -> Int in
                count += 1
                return count
            }
            // Reads see at least what this change set led to: every entity it left is still there (but #5, which
            // the third call deletes), since later changes are only queued behind this delivery.
            let current = Set(controller.snapshot.fetchedObjects.map(\.id))
            #expect(Set(snapshot.fetchedObjects.map(\.id)).subtracting([5]).isSubset(of: current))
            #expect(changes.insertedItemIDs.allSatisfy { snapshot.object(withID: $0) != nil })
            switch call {
            case 1, 2: controller.apply(.inserted(Item(100 + call, section: "a", score: call)))
            case 3:
                controller.pause()
                controller.apply(.deleted(5))
                controller.apply(.inserted(Item(200, section: "z", score: 1)))
                controller.resume()
            case 4: own.withLock { $0 }?.cancel()
            default: break
            }
        }
        own.withLock { $0 = subscription }
        let watcher = Chain(start: start)
        let (watchedStart, watching) = controller.observeChanges { watcher.record($0, $1) }
        #expect(SnapshotModel(watchedStart) == SnapshotModel(start))
        let recorder = EventHarness.ChainRecorder<Item>(initial: SnapshotModel(start))
        controller.delegate = recorder
        let finished = await EventHarness.finishes { controller.apply(.deleted(1)) }
        #expect(finished, "no deadlock")
        // deleted(1), two inserts, the resume's catch-up, then nothing more from the cancelled handler.
        #expect(calls.withLock { $0 } == 4)
        controller.apply(.deleted(2))
        #expect(calls.withLock { $0 } == 4, "a cancelled handler is not called again")
        #expect(watcher.changeSets.count == 5)
        watcher.expectChain(endingAt: SnapshotModel(controller.snapshot))
        recorder.expectChain()
        #expect(recorder.changeSets == watcher.changeSets, "every observer sees the same change sets")
        #expect(Set(controller.fetchedObjects.map(\.id)) == [3, 4, 6, 101, 102, 200])
        withExtendedLifetime(watching) {}
    }

    /// A delegate whose per-item callback applies an event and reads the controller: the inner change
    /// set follows the outer one, whose callbacks finish first.
    @Test func aDelegateThatAppliesFromAPerItemCallback() async throws {
        let controller = try await loaded()
        final class Delegate: FetchedResultsControllerDelegate, Sendable {
            let log = Locked<[String]>([])
            func controllerWillChangeContent(_ controller: FetchedResultsController<Item>) {
                log.withLock { $0.append("will") }
            }
            func controller(_ controller: FetchedResultsController<Item>, didChange item: ItemChange<Item>) {
                log.withLock { $0.append("item \(item.id)") }
                if item.id == 1 { controller.apply(.deleted(6)) }
                _ = controller.indexPath(forID: item.id)
            }
            func controller(
                _ controller: FetchedResultsController<Item>, didChangeContentWith changes: ChangeSet<Item>,
                snapshot: FetchedResultsSnapshot<Item>
            ) {
                log.withLock { $0.append("did") }
            }
        }
        let delegate = Delegate()
        controller.delegate = delegate
        let finished = await EventHarness.finishes { controller.apply(.deleted(1)) }
        #expect(finished)
        #expect(delegate.log.withLock { $0 } == ["will", "item 1", "did", "will", "item 6", "did"])
    }

    /// An observer added from a callback starts from the results it is given: it does not receive the
    /// change set being delivered, and receives the ones queued after it.
    @Test func anObserverAddedDuringADelivery() async throws {
        let controller = try await loaded()
        let added = Locked<(Chain, EventSubscription)?>(nil)
        let (_, outer) = controller.observeChanges { _, _ in
            guard added.withLock({ $0 == nil }) else { return }
            let (start, subscription) = controller.observeChanges { changes, snapshot in
                added.withLock { $0 }?.0.record(changes, snapshot)
            }
            added.withLock { $0 = (Chain(start: start), subscription) }
            controller.apply(.deleted(6))
        }
        let first = controller.apply(.deleted(1))
        controller.apply(.inserted(Item(7, section: "d", score: 1)))
        let (chain, _) = try #require(added.withLock { $0 })
        #expect(chain.changeSets.count == 2)
        #expect(!chain.changeSets.contains(first))
        #expect(chain.changeSets.first?.deletedItemIDs == [6])
        chain.expectChain(endingAt: SnapshotModel(controller.snapshot))
        withExtendedLifetime(outer) {}
    }

    /// An observer removed by another one's callback, in the middle of a delivery and with change sets
    /// queued behind it, hears nothing from then on.
    @Test func anObserverRemovedDuringADelivery() async throws {
        let controller = try await loaded()
        let victim = Locked<EventSubscription?>(nil)
        let removed = Locked(false)
        let (_, remover) = controller.observeChanges { _, _ in
            guard removed.withLock({ $0 }) == false else { return }
            // Queued behind the change set being delivered, then the victim goes.
            controller.apply(.deleted(6))
            victim.withLock { $0 }?.cancel()
            removed.withLock { $0 = true }
        }
        let heard = Locked<[ChangeSet<Item>]>([])
        let (_, subscription) = controller.observeChanges { changes, _ in heard.withLock { $0.append(changes) } }
        victim.withLock { $0 = subscription }
        let stream = controller.changes
        let first = controller.apply(.deleted(1))
        controller.apply(.deleted(2))
        #expect(heard.withLock { $0 }.isEmpty, "removed before its turn in the first delivery")
        let all = await EventHarness.collect(3, from: stream)
        #expect(all.count == 3 && all.first == first)
        withExtendedLifetime(remover) {}
    }

    /// A `changes` sequence whose reader stops in the middle of a stream of deliveries ends cleanly,
    /// and the controller goes on delivering to the others.
    @Test func aChangesReaderThatStopsWhileDeliveriesArrive() async throws {
        let controller = try await loaded()
        let stopping = controller.changes
        let staying = controller.changes
        let reader = Task { () -> Int in
            var count = 0
            for await _ in stopping {
                count += 1
                if count == 2 { break }
            }
            return count
        }
        await EventHarness.onThreads(4) { thread in
            for index in 0..<25 { controller.apply(.inserted(Item(1000 + thread * 100 + index, section: "a"))) }
        }
        #expect(await reader.value == 2)
        let all = await EventHarness.collect(100, from: staying)
        #expect(all.count == 100)
        #expect(controller.fetchedObjects.count == 106)
    }
}
