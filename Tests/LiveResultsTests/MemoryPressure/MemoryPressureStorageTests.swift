import Foundation
@_spi(Testing) import LiveResults
import LiveResultsTesting
import Testing

/// An entity whose versions a test can count: each version holds a token of a ``LifetimeWatch``.
private struct Versioned: FetchableEntity {
    var id: Int
    var score: Int
    var token: LifetimeWatch.Token

    static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.id == rhs.id && lhs.score == rhs.score && lhs.token === rhs.token
    }
}

@Suite("Memory pressure and the storage")
struct MemoryPressureStorageTests {
    @Test("a memory pressure signal frees the versions that only released snapshots held")
    func memoryPressureFreesReleasedVersions() async throws {
        let watch = LifetimeWatch()
        let signal = MemoryPressureSignal()
        // The request makes new versions on each call, so that only the controller holds them.
        let controller = FetchedResultsController<Versioned>(
            definition: FetchDefinition(request: {
                (0..<400).map { Versioned(id: $0, score: $0 % 7, token: watch.token()) }
            }),
            sortDescriptors: [SortDescriptor(\Versioned.score)],
            memoryPressure: signal)
        try await controller.performFetch()

        var snapshot: FetchedResultsSnapshot<Versioned>? = controller.snapshot
        var random = SeededGenerator(seed: 3)
        // Every other id changes, one event at a time, while the snapshot holds the first versions.
        for id in stride(from: 0, to: 400, by: 2) {
            let score = Int.random(in: 0..<7, using: &random)
            controller.apply(.updated(Versioned(id: id, score: score, token: watch.token())))
        }
        let current = controller.snapshot
        let firstOrder = (0..<400).sorted { ($0 % 7, $0) < ($1 % 7, $1) }
        #expect(snapshot!.fetchedObjects.map(\.id) == firstOrder, "the snapshot still shows the first versions")
        snapshot = nil
        // Nodes copied while the snapshot was alive borrow from its nodes, which keep old versions.
        #expect(snapshot == nil && watch.liveCount > 400)

        signal.send()
        #expect(watch.liveCount == 400, "exactly the current versions are alive")
        #expect(controller.snapshot.fetchedObjects.elementsEqual(current.fetchedObjects), "the contents did not change")
        current._checkInvariants()
    }
}
