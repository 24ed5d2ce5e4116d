import Foundation
import Testing

@testable import LiveResults

/// What the update streams keep of each version (``_VersionUndo``): random chains of batches, rollbacks,
/// refetches, resorts and resets on a core that records them; undoing the versions newest first from the
/// last results gives every earlier version exactly, insertion sequences included.
@Suite("Versions undone")
struct VersionUndoTests {
    typealias Workload = RandomizedModelTests.Workload

    /// A version's results: the display order and each entity's stored version.
    struct Version: Equatable {
        let model: SnapshotModel<Item>
        let stored: [Int: _StoredEntity<Item>]

        init(_ storage: _SectionedStorage<Item>) {
            model = SnapshotModel(FetchedResultsSnapshot(_storage: storage))
            stored = Dictionary(
                uniqueKeysWithValues: model.sections.flatMap(\.items).map { ($0.id, storage.stored(forID: $0.id)!) })
        }
    }

    @Test("undoing the versions newest first gives each earlier version", arguments: [UInt64(71), 72, 73, 74])
    func undoGivesEveryEarlierVersion(seed: UInt64) {
        var workload = Workload(seed: seed, idSpace: 40)
        let ordering = _EntityOrdering<Item>(
            sectionNameKeyPath: \Item.section, sectionOrder: .ascending,
            rule: _EntityOrdering.rule(of: [SortDescriptor(\Item.score)]))
        var core = _ResultsCore(ordering: ordering, isIncluded: { $0.score != 7 })
        _ = core.replaceAll(with: workload.fetchResult(count: 25))
        core.undo = _VersionUndo()
        var versions = [Version(core.storage)]
        var undos: [_VersionUndo<Item>] = []
        for _ in 0..<300 {
            // Some versions hold several steps, as a delivery after a pause or coalescing does.
            for _ in 0..<Int.random(in: 1...3, using: &workload.random) {
                let known = Array(FetchedResultsSnapshot(_storage: core.storage).fetchedObjects)
                switch Int.random(in: 0..<100, using: &workload.random) {
                case 0..<3:
                    _ = core.replaceAll(
                        with: workload.fetchResult(count: Int.random(in: 0..<30, using: &workload.random)))
                case 3..<5:
                    let descending = Bool.random(using: &workload.random)
                    _ = core.resort(
                        by: _EntityOrdering.rule(of: [
                            SortDescriptor(\Item.title),
                            SortDescriptor(\Item.score, order: descending ? .reverse : .forward),
                        ]))
                case 5: _ = core.removeAll()
                case 6..<12 where !known.isEmpty:
                    // A rollback puts earlier versions back, with their insertion sequence.
                    let id = known.randomElement(using: &workload.random)!.id
                    let earlier = versions.randomElement(using: &workload.random)!.stored[id]
                    _ = core.restore([(id, earlier)], events: [.deleted(id)])
                default: _ = core.apply(workload.batch(knownItems: known))
                }
            }
            undos.append(core.undo.take()!)
            core.undo = _VersionUndo()
            versions.append(Version(core.storage))
        }
        var storage = core.storage
        for index in undos.indices.reversed() {
            undos[index].undo(&storage)
            #expect(Version(storage) == versions[index], "seed \(seed), version \(index)")
        }
    }

    @Test("nothing is recorded while no stream may resume")
    func nothingRecordedWithoutStreams() {
        var workload = Workload(seed: 75, idSpace: 40)
        var core = _ResultsCore(
            ordering: _EntityOrdering<Item>(
                sectionNameKeyPath: nil, sectionOrder: .ascending,
                rule: _EntityOrdering.rule(of: [SortDescriptor(\Item.score)])),
            isIncluded: { _ in true })
        _ = core.replaceAll(with: workload.fetchResult(count: 25))
        for _ in 0..<20 {
            _ = core.apply(
                workload.batch(knownItems: Array(FetchedResultsSnapshot(_storage: core.storage).fetchedObjects)))
        }
        #expect(core.undo == nil)
    }
}
