import Foundation
import Testing

@testable import LiveResults

/// The queue of one update stream, which a consumer reads a little behind.
@Suite("Update stream queue")
struct UpdateSubscriberTests {
    /// A consumer always 10 to 100 versions behind never empties the queue: the slots it read must still go.
    @Test("a consumer that stays a little behind keeps the queue within twice its backlog")
    func slotsReadAreDropped() {
        let subscriber = _UpdateSubscriber<Item>(bufferLimit: 128)
        subscriber.start(with: .catchUp(from: nil))
        var sequence: UInt64 = 0
        func push(_ count: Int) {
            for _ in 0..<count {
                sequence += 1
                let changes = _VersionChanges<Item>(ChangeSet(), inserted: [], updated: [], sequence: sequence)
                _ = subscriber.push(.changes(changes))
            }
        }
        func take(_ count: Int) {
            for _ in 0..<count { _ = subscriber.take() }
        }
        take(1)  // the first catch-up, which would absorb what follows
        push(10)
        var largest = 0
        var taken: UInt64 = 0
        for _ in 0..<1_000 {
            push(90)
            take(90)
            largest = max(largest, subscriber.state.withLock { $0.queue.count })
            if case .changes(let changes)?? = subscriber.take().map({ $0?.item }) { taken = changes.sequence }
            push(1)
        }
        #expect(largest <= 2 * 100 + 32, "the queue held \(largest) slots for a backlog of at most 100")
        #expect(taken == sequence - 10, "nothing lost or reordered: \(taken) of \(sequence)")
    }
}
