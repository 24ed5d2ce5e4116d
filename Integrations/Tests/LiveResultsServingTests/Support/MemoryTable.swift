import Foundation
import LiveResults
import Synchronization

/// A table in memory, as a queryable source: each write changes its rows and publishes their events as one
/// batch (a transaction); its fetches are counted.
final class MemoryTable<Entity: QueryableEntity & Codable>: QueryableSource where Entity.ID: Comparable {
    private let rows: Mutex<[Entity.ID: Entity]>
    private let bus = EventBus<Entity>()
    private let fetchCount = Atomic(0)

    init(_ rows: [Entity]) {
        self.rows = Mutex(Dictionary(rows.map { ($0.id, $0) }) { _, last in last })
    }

    /// The rows now, by id.
    var all: [Entity] { rows.withLock { $0.values.sorted { $0.id < $1.id } } }

    /// How many fetches read the table so far.
    var fetches: Int { fetchCount.load(ordering: .relaxed) }

    func fetchDefinition(for query: LiveQuery<Entity>) -> FetchDefinition<Entity> {
        FetchDefinition(
            request: {
                self.fetchCount.add(1, ordering: .relaxed)
                return self.rows.withLock { $0.values.filter(query.isIncluded) }
            }, isIncluded: query.isIncluded)
    }

    func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription { bus.subscribe(subscriber) }

    /// How many synchronizations were asked for so far.
    var synchronizations: Int { synchronizationCount.load(ordering: .relaxed) }
    /// Whether ``synchronize()`` throws, as a database out of reach makes it.
    let synchronizationFails = Atomic(false)
    private let synchronizationCount = Atomic(0)

    /// Counts the call; throws while ``synchronizationFails`` is set. The events are published before a write
    /// returns: there is nothing to wait for.
    func synchronize() async throws {
        synchronizationCount.add(1, ordering: .relaxed)
        if synchronizationFails.load(ordering: .relaxed) { throw SynchronizationFailure() }
    }

    struct SynchronizationFailure: Error {}

    /// Inserts or replaces `upserted` and deletes `deleted`, then publishes it all as one batch.
    func write(_ upserted: [Entity] = [], deleting deleted: [Entity.ID] = []) {
        let events: [EntityEvent<Entity>] = rows.withLock { rows in
            var events: [EntityEvent<Entity>] = []
            for row in upserted {
                events.append(rows.updateValue(row, forKey: row.id) == nil ? .inserted(row) : .updated(row))
            }
            for id in deleted where rows.removeValue(forKey: id) != nil { events.append(.deleted(id)) }
            return events
        }
        bus.publish(events)
    }
}
