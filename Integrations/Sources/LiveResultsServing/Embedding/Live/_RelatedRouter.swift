import LiveResults
import NIOConcurrencyHelpers

/// Routes the events of embedded tables to the live embeddings they can change: one subscription per table for
/// all the embeddings of a route, and an index of the keys each embedding read, so that a related row's event
/// costs O(*e*) for the *e* embeddings that read it, however many there are.
///
/// An embedding that is reading (a fetch, or embedding parents again) gets every event of its tables meanwhile:
/// what it reads may be older than such an event, and the keys it will have read are not known yet.
final class _RelatedRouter: Sendable {
    /// Where an embedding takes the events of a table.
    typealias Delivery = @Sendable (_ events: [_RelatedEvent], _ table: String) -> Void

    private struct Follower {
        let tables: Set<String>
        let deliver: Delivery
    }

    private struct State {
        var nextID = 0
        var followers: [Int: Follower] = [:]
        var readers: [_ReadKey: Set<Int>] = [:]
        var lookupColumns: [String: Set<String>] = [:]
        /// The followers reading, with how many reads each has under way.
        var reading: [Int: Int] = [:]
        var subscriptions: [String: EventSubscription] = [:]
    }

    private let relations: LiveRelations
    private let state = NIOLockedValueBox(State())

    init(relations: LiveRelations) {
        self.relations = relations
    }

    deinit {
        for subscription in state.withLockedValue({ $0.subscriptions.values }) { subscription.cancel() }
    }

    /// Follows `tables` for an embedding that takes their events by `deliver`; returns its id.
    ///
    /// - Complexity: O(*t*) for *t* tables.
    func add(following tables: Set<String>, deliver: @escaping Delivery) -> Int {
        let (id, unfollowed) = state.withLockedValue { state in
            state.nextID += 1
            state.followers[state.nextID] = Follower(tables: tables, deliver: deliver)
            return (state.nextID, tables.filter { state.subscriptions[$0] == nil })
        }
        for table in unfollowed {
            guard let related = relations.tables[table] else { continue }
            // Subscribed outside the lock (a source may deliver at once); another embedding may have won the race.
            let subscription = related.subscribe { [weak self] events in self?.receive(events, of: table) }
            let kept = state.withLockedValue { state in
                guard state.subscriptions[table] == nil else { return false }
                state.subscriptions[table] = subscription
                return true
            }
            if !kept { subscription.cancel() }
        }
        return id
    }

    /// Forgets the embedding `id` and the keys it read.
    ///
    /// - Complexity: O(*r*) for the *r* keys the route's embeddings read.
    func remove(_ id: Int) {
        state.withLockedValue { state in
            state.followers[id] = nil
            state.reading[id] = nil
            state.readers = state.readers.compactMapValues { ids in
                let rest = ids.subtracting([id])
                return rest.isEmpty ? nil : rest
            }
        }
    }

    /// The embedding `id` starts reading: it gets every event of its tables until ``endReading(_:keys:)``.
    ///
    /// - Complexity: O(1).
    func beginReading(_ id: Int) {
        state.withLockedValue { $0.reading[id, default: 0] += 1 }
    }

    /// The embedding `id` read: the keys its parents read now that none did, and those none reads any more.
    ///
    /// - Complexity: O(*k*) for *k* keys changed.
    func endReading(_ id: Int, keys: (added: Set<_ReadKey>, removed: Set<_ReadKey>)) {
        state.withLockedValue { state in
            let reads = (state.reading[id] ?? 1) - 1
            state.reading[id] = reads > 0 ? reads : nil
            for key in keys.added {
                state.readers[key, default: []].insert(id)
                if case .lookup(let table, let column, _) = key {
                    state.lookupColumns[table, default: []].insert(column)
                }
            }
            for key in keys.removed {
                guard var ids = state.readers[key] else { continue }
                ids.remove(id)
                state.readers[key] = ids.isEmpty ? nil : ids
            }
        }
    }

    /// Hands a batch of `table`'s events to the embeddings it can change, outside the lock, in order.
    private func receive(_ events: [_RelatedEvent], of table: String) {
        let deliveries: [Delivery] = state.withLockedValue { state in
            var ids = Set<Int>()
            for event in events {
                switch event {
                case .changed(let id, let values):
                    ids.formUnion(state.readers[.row(table: table, id: id)] ?? [])
                    for column in state.lookupColumns[table] ?? [] {
                        guard let value = values[column] else { continue }
                        ids.formUnion(state.readers[.lookup(table: table, column: column, value: value)] ?? [])
                    }
                case .deleted(let id?):
                    ids.formUnion(state.readers[.row(table: table, id: id)] ?? [])
                case .deleted(nil), .invalidated:
                    ids.formUnion(state.followers.filter { $0.value.tables.contains(table) }.keys)
                }
            }
            ids.formUnion(state.reading.keys)
            return ids.sorted().compactMap { id in
                guard let follower = state.followers[id], follower.tables.contains(table) else { return nil }
                return follower.deliver
            }
        }
        for deliver in deliveries { deliver(events, table) }
    }
}
