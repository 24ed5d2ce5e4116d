/// Routes a source's events to the live queries they can change, observing the source once for all of them.
///
/// A query with an `eq` or `in` filter on an indexed column is indexed under the values it names: an event
/// about an entity reaches it only when the entity's value of that column, now or when last seen, is one of
/// them. A query without such a filter, and a query whose fetch is running, receives every event. So an event
/// costs O(*c* + *a*) lookups and deliveries for *c* indexed columns and *a* queries it can change, however
/// many queries are live (Electric routes its shapes alike).
///
/// The values last seen of each entity (from events and fetches) route an update to the queries of its old
/// values too, so that it leaves them, and a deletion to the queries that hold it. The invariant: every entity
/// an indexed query holds was seen with its current values, or the query's fetch is running.
final class _QueryRouter<Entity: QueryableEntity>: Sendable {
    private struct Route: Sendable {
        let subscriber: EventSubscriber<Entity>
        /// The indexed column and the values the query matches on it; `nil`: every event.
        let key: (column: Int, values: [QueryValue])?
    }

    private struct State: Sendable {
        var routes: [Int: Route] = [:]
        var nextID = 0
        /// Per indexed column, the routes indexed under each value.
        var index: [[QueryValue: Set<Int>]]
        /// The routes that receive every event: no indexed filter, or a fetch running.
        var everything: [Int: Int] = [:]
        /// The indexed columns' values each entity was last seen with.
        var seen: [Entity.ID: [QueryValue]] = [:]
        var upstream: EventSubscription?
    }

    private let source: any EventSource<Entity>
    private let columns: [QueryColumn<Entity>]
    private let state: _Lock<State>

    init(source: any EventSource<Entity>, indexing columnNames: [String]) {
        self.source = source
        self.columns = columnNames.compactMap { Entity.queryColumn(named: $0) }
        self.state = _Lock(State(index: Array(repeating: [:], count: columns.count)))
    }

    /// The indexed filter of `query` that names the fewest values; `nil` when it has none.
    func indexKey(of query: LiveQuery<Entity>) -> (column: Int, values: [QueryValue])? {
        var best: (column: Int, values: [QueryValue])?
        for filter in query.filters {
            guard let values = filter.condition.matchingValues,
                let column = columns.firstIndex(where: { $0.name == filter.column })
            else { continue }
            if best == nil || values.count < best!.values.count { best = (column, values) }
        }
        return best
    }

    // MARK: Routes

    /// A number for a route that ``add(_:subscriber:key:)`` adds later.
    func makeRouteID() -> Int {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    /// Routes the events that `key` matches (all of them for `nil`) to `subscriber`, until ``remove(_:)``.
    func add(_ id: Int, subscriber: EventSubscriber<Entity>, key: (column: Int, values: [QueryValue])?) {
        let subscribes = state.withLock { state in
            state.routes[id] = Route(subscriber: subscriber, key: key)
            if let key {
                for value in key.values { state.index[key.column][value, default: []].insert(id) }
            } else {
                state.everything[id, default: 0] += 1
            }
            return state.upstream == nil
        }
        if subscribes { subscribeUpstream() }
    }

    /// Stops routing to route `id`; the last route's removal ends the source's subscription.
    func remove(_ id: Int) {
        let upstream = state.withLock { state -> EventSubscription? in
            guard let route = state.routes.removeValue(forKey: id) else { return nil }
            if let key = route.key {
                for value in key.values {
                    state.index[key.column][value]?.remove(id)
                    if state.index[key.column][value]?.isEmpty == true { state.index[key.column][value] = nil }
                }
            }
            state.everything[id] = nil
            guard state.routes.isEmpty else { return nil }
            // Nobody follows the source: what was seen of it goes stale.
            state.seen = [:]
            defer { state.upstream = nil }
            return state.upstream
        }
        upstream?.cancel()
    }

    /// Route `id` receives every event while its fetch runs.
    func fetchStarted(_ id: Int) {
        state.withLock { state in
            if state.routes[id] != nil { state.everything[id, default: 0] += 1 }
        }
    }

    /// Route `id`'s fetch returned `entities` (or failed, `nil`): they are seen, unless an event saw them since.
    func fetchEnded(_ id: Int, entities: [Entity]?) {
        state.withLock { state in
            for entity in entities ?? [] where state.seen[entity.id] == nil {
                state.seen[entity.id] = columns.map { $0.value(of: entity) }
            }
            guard let count = state.everything[id] else { return }
            state.everything[id] = count > 1 ? count - 1 : nil
        }
    }

    private func subscribeUpstream() {
        let subscription = source.subscribe(
            EventSubscriber(
                receive: { [weak self] in self?.route($0) },
                reportMalformedEvent: { [weak self] error in self?.broadcastMalformed(error) }))
        let surplus = state.withLock { state -> EventSubscription? in
            guard state.upstream == nil, !state.routes.isEmpty else { return subscription }
            state.upstream = subscription
            return nil
        }
        surplus?.cancel()
    }

    // MARK: Routing

    /// Delivers each event of `events` to the routes it can change, one batch per route, in order.
    func route(_ events: [EntityEvent<Entity>]) {
        let batches = state.withLock { state -> [(EventSubscriber<Entity>, [EntityEvent<Entity>])] in
            var batches: [Int: [EntityEvent<Entity>]] = [:]
            for event in events {
                for id in targets(of: event, in: &state) { batches[id, default: []].append(event) }
            }
            return batches.sorted { $0.key < $1.key }.compactMap { id, events in
                state.routes[id].map { ($0.subscriber, events) }
            }
        }
        for (subscriber, events) in batches { subscriber.receive(events) }
    }

    /// The routes `event` can change, updating what was seen of its entity.
    private func targets(of event: EntityEvent<Entity>, in state: inout State) -> Set<Int> {
        var targets = Set(state.everything.keys)
        switch event {
        case .invalidated:
            return Set(state.routes.keys)
        case .deleted(let id):
            if let old = state.seen.removeValue(forKey: id) { collect(old, from: state, into: &targets) }
        case .inserted(let entity), .updated(let entity):
            let values = columns.map { $0.value(of: entity) }
            if let old = state.seen.updateValue(values, forKey: entity.id), old != values {
                collect(old, from: state, into: &targets)
            }
            collect(values, from: state, into: &targets)
        }
        return targets
    }

    private func collect(_ values: [QueryValue], from state: State, into targets: inout Set<Int>) {
        for (column, value) in values.enumerated() {
            if let routes = state.index[column][value] { targets.formUnion(routes) }
        }
    }

    private func broadcastMalformed(_ error: any Error) {
        let subscribers = state.withLock { $0.routes.values.map(\.subscriber) }
        for subscriber in subscribers { subscriber.reportMalformedEvent(error) }
    }
}
