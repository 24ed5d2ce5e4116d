import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOConcurrencyHelpers
import TodoServer

/// A replica that follows a stream of updates in a task of its own, as a client would: of to-dos, or of rows
/// of the client's own type (embedded rows, say).
final class Follower<Entity: FetchableEntity & Codable>: Sendable {
    let replica = ResultsReplica<Entity>()
    private let record = Locked(Record())
    private let reader = Locked<Task<Void, Never>?>(nil)

    struct Record {
        /// The bases of the updates received, in order (`nil`: whole results).
        var bases: [ResultsVersion?] = []
        var failure: String?
        var ended = false
    }

    /// Follows `updates`, applying each to the replica.
    init(_ updates: some AsyncSequence<ResultsUpdate<Entity>, any Error> & Sendable) {
        let task = Task { [replica, record] in
            do {
                for try await update in updates {
                    // Recorded before the replica shows the update, so that a test that waits for the
                    // replica's contents then finds the update among the bases.
                    record.withLockedValue { $0.bases.append(update.base) }
                    do {
                        _ = try replica.apply(update)
                    } catch {
                        record.withLockedValue { $0.failure = "\(error)" }
                        return
                    }
                }
            } catch {
                record.withLockedValue { $0.failure = "\(error)" }
            }
            record.withLockedValue { $0.ended = true }
        }
        reader.withLockedValue { $0 = task }
    }

    var bases: [ResultsVersion?] { record.withLockedValue { $0.bases } }
    var failure: String? { record.withLockedValue { $0.failure } }
    var hasEnded: Bool { record.withLockedValue { $0.ended } }

    /// Waits until the replica is at `version` (or failed, or the stream ended); returns whether it is.
    func reach(_ version: ResultsVersion, timeout: Duration = .seconds(30)) async -> Bool {
        await eventually(timeout: timeout) { replica.version == version || failure != nil || hasEnded }
        return replica.version == version
    }

    func stop() {
        reader.withLockedValue { $0?.cancel() }
    }

    deinit {
        reader.withLockedValue { $0?.cancel() }
    }
}

extension EventStream {
    /// The stream's updates, decoded; events of other kinds (`event: source`) are left out.
    var updates: some AsyncSequence<ResultsUpdate<Todo>, any Error> & Sendable { updates(of: Todo.self) }

    /// The stream's updates of rows of `type`, decoded.
    func updates<Entity: FetchableEntity & Codable>(
        of type: Entity.Type
    ) -> some AsyncSequence<ResultsUpdate<Entity>, any Error> & Sendable {
        events.compactMap {
            $0.name == nil ? try JSONDecoder().decode(ResultsUpdate<Entity>.self, from: Data($0.data.utf8)) : nil
        }
    }
}
