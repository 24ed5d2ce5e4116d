import Foundation
@_spi(Testing) import LiveResults
import Testing

/// Randomized chains of events, pauses, coalescing, refetches, resorts and resets: every update goes
/// through JSON into a replica, which equals the controller at that version after each one, and whose
/// change sets are the controller's and keep the contract.
@Suite("Replicas follow controllers over JSON", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ReplicaChainTests {
    /// A replica fed by one update stream of a controller, through `JSONEncoder` and `JSONDecoder`.
    struct Follower {
        var updates: ResultsUpdates<Item>.Iterator
        let replica = ResultsReplica<Item>()
        /// The change sets delivered to the controller's observers that the replica has not applied yet.
        let delivered: Locked<[ChangeSet<Item>]>
        let encoder = JSONEncoder()
        let decoder = JSONDecoder()

        /// Applies updates until the replica has the controller's version.
        mutating func catchUp(with controller: FetchedResultsController<Item>, seed: UInt64, step: Int) async throws {
            while replica.version != controller.version {
                let update = try #require(await updates.next())
                let data = try encoder.encode(update)
                let decoded = try decoder.decode(ResultsUpdate<Item>.self, from: data)
                #expect(decoded == update, "seed \(seed) step \(step)")
                let before = SnapshotModel(replica.snapshot)
                let changes = try replica.apply(decoded)
                let after = SnapshotModel(replica.snapshot)
                expectContract(changes, from: before, to: after)
                if case .changes = update.content {
                    let observed = delivered.withLock { $0.isEmpty ? nil : $0.removeFirst() }
                    #expect(changes == observed, "seed \(seed) step \(step)")
                }
            }
            #expect(
                SnapshotModel(replica.snapshot) == SnapshotModel(controller.snapshot), "seed \(seed) step \(step)")
        }
    }

    @Test("a replica equals the controller after every update", arguments: [UInt64(61), 62, 63])
    func replicaFollows(seed: UInt64) async throws {
        var workload = RandomizedModelTests.Workload(seed: seed, idSpace: 60)
        let store = FakeStore(workload.fetchResult(count: 30))
        let controller = FetchedResultsController.make(store, sortDescriptors: [SortDescriptor(\Item.score)])
        try await controller.performFetch()
        let delivered = Locked<[ChangeSet<Item>]>([])
        let (_, observation) = controller.observeChanges { changes, _ in delivered.withLock { $0.append(changes) } }
        var follower = Follower(updates: controller.updates().makeAsyncIterator(), delivered: delivered)
        var coalescing = false
        /// Versions the replica had, with its results then: resumes start from them.
        var seen: [(version: ResultsVersion, results: SnapshotModel<Item>)] = []
        for step in 0..<600 {
            // CPU-bound: let the other suites' background tasks run on the cooperative threads too.
            if step % 10 == 0 { await Task.yield() }
            let choice = Int.random(in: 0..<100, using: &workload.random)
            switch choice {
            case 0..<6: controller.pause()
            case 6..<12: controller.resume()
            case 12..<15:
                coalescing.toggle()
                controller.coalescingInterval = coalescing ? .seconds(100) : .zero
            case 15..<18:
                store.items = workload.fetchResult(count: Int.random(in: 0..<40, using: &workload.random))
                try await controller.performFetch()
            case 18:
                controller.reset()
                try await controller.performFetch()
            case 19:
                controller.resort(using: [SortDescriptor(\Item.title), SortDescriptor(\Item.score, order: .reverse)])
            case 20..<24:
                // A new stream resumes from the replica's version with one catch-up change set.
                let version = try #require(follower.replica.version)
                // Read at once: a catch-up not read yet absorbs later versions (see the stream tests).
                follower.updates = controller.updates(since: version).makeAsyncIterator()
                follower.delivered.withLock { $0.removeAll() }
                let update = try #require(await follower.updates.next())
                #expect(update.base == version, "seed \(seed) step \(step): a held version resumes")
                let before = SnapshotModel(follower.replica.snapshot)
                let changes = try follower.replica.apply(update)
                expectContract(changes, from: before, to: SnapshotModel(follower.replica.snapshot))
            case 24..<27 where !seen.isEmpty:
                // A client that had an earlier version resumes from it with one catch-up change set.
                let (version, results) = seen.randomElement(using: &workload.random)!
                let client = ResultsReplica<Item>()
                try client.apply(
                    ResultsUpdate(
                        version: version,
                        content: .results(results.sections.map { .init(name: $0.name, entities: $0.items) })))
                let resumed = controller.updates(since: version).makeAsyncIterator()
                let update = try #require(await resumed.next())
                #expect(update.base == version, "seed \(seed) step \(step): a held version resumes")
                let changes = try client.apply(update)
                expectContract(changes, from: results, to: SnapshotModel(client.snapshot))
                #expect(
                    SnapshotModel(client.snapshot) == SnapshotModel(controller.snapshot), "seed \(seed) step \(step)")
                // Opening the stream delivered what coalescing held: the follower reads it like any update.
                if coalescing { try await follower.catchUp(with: controller, seed: seed, step: step) }
            default:
                controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            }
            guard !coalescing else { continue }
            try await follower.catchUp(with: controller, seed: seed, step: step)
            if let version = follower.replica.version, seen.last?.version != version {
                seen.append((version, SnapshotModel(follower.replica.snapshot)))
                if seen.count > 60 { seen.removeFirst() }
            }
            if step % 100 == 0 {
                for item in controller.fetchedObjects {
                    #expect(follower.replica.indexPath(for: item) == controller.indexPath(for: item))
                }
            }
        }
        withExtendedLifetime(observation) {}
    }
}
