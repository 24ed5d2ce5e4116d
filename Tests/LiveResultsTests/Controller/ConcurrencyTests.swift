import Foundation
import LiveResults
import Synchronization
import Testing

/// The controller is `Sendable` (the *ChangeSetContract* and *ConcurrencyAndDelivery* articles): many tasks apply
/// events at once, every change set is delivered exactly once and in mutation order, and readers always see a
/// consistent snapshot.
///
/// The workloads give every entity a unique score and every task its own ids, so the end state does not
/// depend on how the tasks interleave and the reference model can predict it.
@Suite("Concurrency", .timeLimit(.minutes(5)), .tags(.concurrent))
struct ConcurrencyTests {
    typealias Fixture = EventHarness.Fixture

    // MARK: Many writers

    @Test func hundredTasksApplyingAtOnceAgreeWithTheReference() async throws {
        var fixture = try await Fixture.loaded(Writers.seed)
        let controller = fixture.controller
        let changes = controller.changes
        let returned = await withTaskGroup(of: [ChangeSet<Item>].self) { group in
            for task in 0..<Writers.count {
                group.addTask { Writers.batches(for: task).map { controller.apply($0) }.filter { !$0.isEmpty } }
            }
            return await group.reduce(into: []) { $0 += $1 }
        }
        (0..<Writers.count).forEach { Writers.batches(for: $0).joined().forEach { fixture.reference.apply($0) } }
        fixture.expectMatchesReference()

        let delivered = fixture.recorder.changeSets
        #expect(returned.count == Writers.count * Writers.nonEmptyBatches)
        #expect(delivered.count == returned.count, "every change set is delivered once")
        #expect(Self.multiset(delivered) == Self.multiset(returned), "the delivered change sets are the returned ones")
        let netInserted = delivered.reduce(0) { $0 + $1.insertedItems.count - $1.deletedItems.count }
        #expect(Writers.seed.count + netInserted == controller.snapshot.count)
        fixture.recorder.expectChain()  // in mutation order: each applies to the snapshot the previous one made

        let streamed = await EventHarness.collect(delivered.count, from: changes)
        #expect(streamed == delivered, "the changes stream sees the same change sets in the same order")
    }

    /// A change set with its ids, as a key to compare collections of change sets regardless of order.
    static func multiset(_ changeSets: [ChangeSet<Item>]) -> [String: Int] {
        changeSets.reduce(into: [:]) { counts, changes in
            let key =
                "\(changes) \(changes.deletedItemIDs) \(changes.insertedItemIDs) \(changes.movedItemIDs) \(changes.updatedItemIDs)"
            counts[key, default: 0] += 1
        }
    }

    // MARK: Readers during writes

    @Test func readersAlwaysSeeAConsistentSnapshot() async throws {
        var fixture = try await Fixture.loaded(Churn.seed)
        let controller = fixture.controller
        let writersDone = EventHarness.Flag()
        let firstSnapshot = controller.snapshot
        let firstModel = SnapshotModel(firstSnapshot)
        let reports = await withTaskGroup(of: ReadReport.self) { group in
            for reader in 0..<Churn.readers {
                group.addTask { await Self.read(controller, until: writersDone, minimumReads: 20 + reader) }
            }
            group.addTask {
                await Self.write(controller)
                writersDone.set()
                return ReadReport()
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let problems = reports.flatMap(\.problems)
        #expect(problems.isEmpty, "inconsistent reads: \(problems.prefix(5))")
        #expect(reports.map(\.reads).reduce(0, +) >= Churn.readers * 20)
        #expect(SnapshotModel(firstSnapshot) == firstModel, "a snapshot never changes once taken")
        #expect(Self.inconsistency(in: controller.snapshot) == nil)
        (0..<Churn.writers).forEach { Churn.events(for: $0).forEach { fixture.reference.apply($0) } }
        fixture.expectMatchesReference()
        fixture.recorder.expectChain()
    }

    struct ReadReport: Sendable {
        var reads = 0
        var problems: [String] = []
    }

    static func write(_ controller: FetchedResultsController<Item>) async {
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<Churn.writers {
                group.addTask {
                    for event in Churn.events(for: writer) {
                        controller.apply(event)
                        await Task.yield()
                    }
                }
            }
        }
    }

    static func read(_ controller: FetchedResultsController<Item>, until done: EventHarness.Flag, minimumReads: Int)
        async -> ReadReport
    {
        var report = ReadReport()
        while !done.isSet || report.reads < minimumReads {
            report.reads += 1
            if let problem = inconsistency(in: controller.snapshot) { report.problems.append(problem) }
            if let problem = inconsistency(in: controller.sections) { report.problems.append("sections: \(problem)") }
            if let problem = orderProblem(in: Array(controller.fetchedObjects)) {
                report.problems.append("fetchedObjects: \(problem)")
            }
            if let item = controller.fetchedObjects.last, let path = controller.indexPath(for: item), path.count != 2 {
                report.problems.append("indexPath(for:) returned \(path)")
            }
            await Task.yield()
        }
        return report
    }

    /// What is wrong with a snapshot, if anything: every entity's `indexPath(for:)` must lead back to it
    /// within the same snapshot, and sections, counts and order must agree.
    static func inconsistency(in snapshot: FetchedResultsSnapshot<Item>) -> String? {
        if let problem = inconsistency(in: snapshot.sections) { return problem }
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            for (itemIndex, item) in section.objects.enumerated() {
                let path = snapshot.indexPath(for: item)
                guard path == IndexPath(item: itemIndex, section: sectionIndex) else {
                    return "indexPath(for: \(item)) = \(String(describing: path))"
                }
                guard snapshot.object(at: IndexPath(item: itemIndex, section: sectionIndex)) == item else {
                    return "object(at:) ≠ \(item)"
                }
                guard snapshot.object(withID: item.id) == item else { return "object(withID: \(item.id)) ≠ \(item)" }
            }
        }
        let flattened = snapshot.sections.flatMap(\.objects)
        guard snapshot.count == flattened.count, snapshot.fetchedObjects.count == flattened.count else {
            return "counts disagree"
        }
        guard snapshot.fetchedObjects.elementsEqual(flattened) else { return "fetchedObjects ≠ the sections' objects" }
        return nil
    }

    static func inconsistency(in sections: FetchedResultsSections<Item>) -> String? {
        for (index, section) in sections.enumerated() {
            guard section.numberOfObjects > 0, section.numberOfObjects == section.objects.count else {
                return "section \(section.name) has \(section.numberOfObjects) objects"
            }
            guard section.objects.allSatisfy({ $0.section == section.name }) else {
                return "section \(section.name) holds another section's entity"
            }
            guard index == 0 || sections[index - 1].name < section.name else {
                return "sections out of order at \(index)"
            }
        }
        return orderProblem(in: sections.flatMap(\.objects))
    }

    /// Entities must be ordered by section, then by (unique) score.
    static func orderProblem(in items: [Item]) -> String? {
        for (previous, next) in zip(items, items.dropFirst())
        where (previous.section, previous.score) >= (next.section, next.score) {
            return "\(previous) is before \(next)"
        }
        return nil
    }
}

/// The workload of the many-writers test: task `t` owns ids `10t ..< 10t + 10`; every score is unique.
private enum Writers {
    static let count = 100
    /// The batches of a task that change something; one more is a no-op.
    static let nonEmptyBatches = 6

    static var seed: [Item] {
        (0..<count).flatMap { task in
            (0..<2).map { Item(task * 10 + $0, section: "s\(task % 4)", score: (task * 10 + $0) * 4) }
        }
    }

    static func batches(for task: Int) -> [[EntityEvent<Item>]] {
        let base = task * 10
        let home = "s\(task % 4)"
        return [
            [.inserted(Item(base + 4, section: "x\(task)", score: (base + 4) * 4))],  // new section
            [.updated(Item(base, section: home, score: (999 - base) * 4 + 1, title: "moved"))],  // move
            [.updated(Item(base + 1, section: home, score: (base + 1) * 4, title: "renamed"))],  // in place
            [.deleted(base + 1), .inserted(Item(base + 5, section: "s\((task + 1) % 4)", score: (base + 5) * 4 + 2))],
            // Empties "x\(task)".
            [.updated(Item(base + 4, section: home, score: (base + 4) * 4 + 3, title: "relocated"))],
            [.inserted(Item(base + 6, section: "s0", score: 1)), .deleted(base + 6)],  // no-op
            [.deleted(base + 5)],
        ]
    }
}

/// The workload of the readers test: writer `w` owns the ids `≡ w (mod writers)` below 200, and inserts,
/// updates (moving across sections and positions) and deletes them. Scores are unique: `… * 1000 + id`.
private enum Churn {
    static let writers = 4
    static let readers = 3
    static let steps = 100

    static var seed: [Item] { (0..<100).map { item($0, version: 0) } }

    static func item(_ id: Int, version: Int) -> Item {
        Item(
            id, section: "s\((id + version) % 5)", score: ((id * 7919 + version * 104_729) % 10_007) * 1000 + id,
            title: "v\(version)")
    }

    static func events(for writer: Int) -> [EntityEvent<Item>] {
        (0..<steps).map { step in
            let id = writer + writers * ((step * 37) % 50)
            return step % 4 == 2 ? .deleted(id) : .updated(item(id, version: step))
        }
    }
}
