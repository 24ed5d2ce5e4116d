import Foundation
import Testing

@testable import LiveResults

/// The shortcuts of `_CollapsibleState.take(_:after:)` (a single event's change set, every touched section
/// expanded) against `_DisplayDiff`, which they skip: for every change set of random events and batches,
/// under random presentations, the view's state gives the change set the diff gives.
@Suite("Collapsible state shortcuts", .timeLimit(.minutes(5)))
struct CollapsibleStateTests {
    /// The state as the view keeps it, and what the comparisons found.
    struct Checked: Sendable {
        var state = _CollapsibleState<Item>(
            initiallyCollapsed: { $0 == "b" || $0 == "é" },
            limit: { $0 == "é" ? SectionLimit(maximum: 3, whenExceeding: 2) : nil })
        var compared = 0
        /// Change sets the single-change shortcut made itself, not as the controller's.
        var madeBySingleChange = 0
        var mismatches: [String] = []
    }

    @Test("the shortcuts give _DisplayDiff's change set", arguments: [UInt64(71), 72, 73, 74])
    func shortcutsAgreeWithTheDiff(seed: UInt64) async throws {
        var workload = RandomizedModelTests.Workload(seed: seed, idSpace: 60)
        let controller = FetchedResultsController<Item>.make(FakeStore(workload.fetchResult(count: 40)))
        try await controller.performFetch()
        let checked = Locked(Checked())
        // Runs under the controller's lock, with each change set as the view sees it.
        let subscription = controller._addQueueObserver { changes, storage, _, _ in
            checked.withLock { checked in
                checked.state.follow(changes)
                var reference = checked.state
                var probe = checked.state
                let single = probe.displayedSingleChange(changes, after: storage)
                let taken = checked.state.take(changes, after: storage)
                var diff = _DisplayDiff(changes, after: storage)
                let expected = diff.run(presenting: &reference)
                checked.compared += 1
                if let single, single != changes { checked.madeBySingleChange += 1 }
                if taken != expected { checked.mismatches.append("\(changes): \(taken), expected \(expected)") }
            }
            return nil
        }
        let limits: [SectionLimit?] = [
            nil, SectionLimit(maximum: 2), SectionLimit(maximum: 4, whenExceeding: 1),
            SectionLimit(maximum: 3, whenExceeding: 2),
        ]
        for _ in 0..<1500 {
            let name = workload.sections.randomElement(using: &workload.random)!
            switch Int.random(in: 0..<100, using: &workload.random) {
            case 0..<11:
                let choice = Int.random(in: 0..<3, using: &workload.random)
                let limit = limits.randomElement(using: &workload.random)!
                let storage = controller.snapshot._storage
                checked.withLock {
                    _ = $0.state.present(name, in: storage) { presentation in
                        switch choice {
                        case 0: presentation.isCollapsed = true
                        case 1: presentation.isCollapsed = false
                        default: presentation.limit = limit
                        }
                    }
                }
            case 11..<60:
                // Single events: the shortcut's case.
                controller.apply(workload.event(knownItems: Array(controller.fetchedObjects)))
            default:
                controller.apply(workload.batch(knownItems: Array(controller.fetchedObjects)))
            }
        }
        withExtendedLifetime(subscription) {}
        let result = checked.withLock { $0 }
        #expect(result.mismatches.isEmpty, "\(result.mismatches.prefix(3))")
        #expect(result.compared > 1000)
        #expect(result.madeBySingleChange > 50, "\(result.madeBySingleChange) of \(result.compared)")
    }
}
