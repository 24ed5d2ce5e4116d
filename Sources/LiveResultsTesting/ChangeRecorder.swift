import Foundation
import LiveResults

/// Records the change sets of live results and the results after each, to check them against the contract.
///
/// ```swift
/// let recorder = ChangeRecorder(controller)       // or a window of it
/// controller.apply(.inserted(post))
/// controller.apply(.deleted(post.id))
/// #expect(recorder.changeSets.count == 2)
/// try recorder.verifyChain()                      // every change set turns its snapshot into the next
/// ```
///
/// It observes the results through ``LiveResults/LiveResultsProtocol/observeChanges(_:)``, so the results'
/// delegate stays yours, and records every change set delivered from its creation until it is released.
/// Change sets delivered on other threads are recorded too; read the recorder once they are delivered.
public final class ChangeRecorder<Entity: FetchableEntity>: Sendable {
    private struct Recording: Sendable {
        var changeSets: [ChangeSet<Entity>] = []
        var snapshots: [FetchedResultsSnapshot<Entity>]
    }

    private let recording: _RecorderLock<Recording>
    private let subscription: EventSubscription

    /// Starts recording `results` from now on.
    ///
    /// - Complexity: O(1).
    public init(_ results: some LiveResultsProtocol<Entity>) {
        let recording = _RecorderLock<Recording>(Recording(snapshots: []))
        let (start, subscription) = results.observeChanges { changes, snapshot in
            recording.withLock { recorded in
                recorded.changeSets.append(changes)
                recorded.snapshots.append(snapshot)
            }
        }
        recording.withLock { $0.snapshots.insert(start, at: 0) }
        self.recording = recording
        self.subscription = subscription
    }

    /// The change sets delivered so far, in order.
    ///
    /// - Complexity: O(1).
    public var changeSets: [ChangeSet<Entity>] { recording.withLock { $0.changeSets } }

    /// The results when recording started, then the results after each change set: one more than
    /// ``changeSets``.
    ///
    /// - Complexity: O(1).
    public var snapshots: [FetchedResultsSnapshot<Entity>] { recording.withLock { $0.snapshots } }

    /// Checks that each recorded change set turns the snapshot before it into the one after it, under every rule
    /// of the contract.
    ///
    /// - Throws: The first ``ChangeSetContract/Violation``, with the change set's index in its message.
    /// - Complexity: O(*c* · *n* log *n*) for *c* change sets of results of *n* entities.
    public func verifyChain() throws(ChangeSetContract.Violation) {
        let (changeSets, snapshots) = recording.withLock { ($0.changeSets, $0.snapshots) }
        for (index, changes) in changeSets.enumerated() {
            do {
                try ChangeSetContract.verify(changes, from: snapshots[index], to: snapshots[index + 1])
            } catch {
                throw ChangeSetContract.Violation(
                    error.rule, "change set \(index): \(error.message)", indexPaths: error.indexPaths)
            }
        }
    }

    deinit {
        subscription.cancel()
    }
}

/// A value behind a pthread mutex (ThreadSanitizer sees pthread locks, not `Synchronization.Mutex`'s futex).
///
/// `@unchecked Sendable`: `value` is only reached through ``withLock(_:)``, which holds the lock throughout.
final class _RecorderLock<Value: Sendable>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    init(_ value: Value) {
        self.value = value
    }

    func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
