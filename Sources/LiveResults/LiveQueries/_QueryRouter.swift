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
///
/// Routing is `@inlinable`, and the subscriber that routes the source's events is made by the registry's
/// `_LiveQueryPaths`, formed where the entity type is known: so an event is routed by code specialized for the
/// entity (hashing its id, reading its columns) rather than by this module's generic copy.
@usableFromInline final class _QueryRouter<Entity: QueryableEntity>: Sendable {
    @usableFromInline struct Route: Sendable {
        @usableFromInline let subscriber: EventSubscriber<Entity>
        /// The indexed column and the values the query matches on it; `nil`: every event.
        @usableFromInline let key: (column: Int, values: [QueryValue])?
    }

    /// The indexed columns' values of an entity. One indexed column, the usual case, is kept inline: no array
    /// per entity to allocate on every event and to chase on every lookup.
    @usableFromInline enum Seen: Hashable, Sendable {
        case one(QueryValue)
        case many([QueryValue])
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var routes: [Int: Route] = [:]
        @usableFromInline var nextID = 0
        /// Per indexed column, the routes indexed under each value.
        @usableFromInline var index: [[QueryValue: Set<Int>]]
        /// The routes that receive every event: no indexed filter, or a fetch running. A set kept whole, so that
        /// an event takes it as it is.
        @usableFromInline var everything: Set<Int> = []
        /// Of each route of ``everything``, how many reasons it has to be there (no indexed filter, a fetch).
        var reasons: [Int: Int] = [:]
        /// The indexed columns' values each entity was last seen with; kept only while a route is indexed.
        @usableFromInline var seen: [Entity.ID: Seen] = [:]
        /// The routes with a key in ``index``.
        @usableFromInline var indexedRoutes = 0
        @usableFromInline var upstream: EventSubscription?

        init(columns: Int) {
            index = Array(repeating: [:], count: columns)
        }

        /// Route `id` receives every event, for one more reason.
        mutating func receiveEverything(_ id: Int) {
            reasons[id, default: 0] += 1
            everything.insert(id)
        }

        /// Route `id` has one reason less to receive every event.
        mutating func dropReason(_ id: Int) {
            guard let count = reasons[id] else { return }
            reasons[id] = count > 1 ? count - 1 : nil
            if count == 1 { everything.remove(id) }
        }

        /// Route `id` receives nothing more.
        mutating func removeEverything(_ id: Int) {
            reasons[id] = nil
            everything.remove(id)
        }
    }

    private let source: any EventSource<Entity>
    /// Makes the subscriber through which the source's events reach ``route(_:)``.
    private let upstreamSubscriber: @Sendable (_QueryRouter) -> EventSubscriber<Entity>
    @usableFromInline let columns: [QueryColumn<Entity>]
    @usableFromInline let state: _Lock<State>

    init(
        source: any EventSource<Entity>, indexing columnNames: [String],
        upstreamSubscriber: @escaping @Sendable (_QueryRouter) -> EventSubscriber<Entity>
    ) {
        self.source = source
        self.upstreamSubscriber = upstreamSubscriber
        self.columns = columnNames.compactMap { Entity.queryColumn(named: $0) }
        self.state = _Lock(State(columns: columns.count))
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
                state.indexedRoutes += 1
                for value in key.values { state.index[key.column][value, default: []].insert(id) }
            } else {
                state.receiveEverything(id)
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
                state.indexedRoutes -= 1
                // No route is indexed: what was seen is not kept (the next indexed route's fetch sees again).
                if state.indexedRoutes == 0 { state.seen = [:] }
                for value in key.values {
                    state.index[key.column][value]?.remove(id)
                    if state.index[key.column][value]?.isEmpty == true { state.index[key.column][value] = nil }
                }
            }
            state.removeEverything(id)
            guard state.routes.isEmpty else { return nil }
            defer { state.upstream = nil }
            return state.upstream
        }
        upstream?.cancel()
    }

    /// Route `id` receives every event while its fetch runs.
    func fetchStarted(_ id: Int) {
        state.withLock { state in
            if state.routes[id] != nil { state.receiveEverything(id) }
        }
    }

    /// Route `id`'s fetch returned `entities` (or failed, `nil`): they are seen, unless an event saw them since.
    func fetchEnded(_ id: Int, entities: [Entity]?) {
        state.withLock { state in
            for entity in state.indexedRoutes > 0 ? entities ?? [] : [] where state.seen[entity.id] == nil {
                state.seen[entity.id] = seen(entity)
            }
            state.dropReason(id)
        }
    }

    private func subscribeUpstream() {
        let subscription = source.subscribe(upstreamSubscriber(self))
        let surplus = state.withLock { state -> EventSubscription? in
            guard state.upstream == nil, !state.routes.isEmpty else { return subscription }
            state.upstream = subscription
            return nil
        }
        surplus?.cancel()
    }

    // MARK: Routing

    /// Delivers each event of `events` to the routes it can change, one batch per route, in order.
    @inlinable func route(_ events: [EntityEvent<Entity>]) {
        guard events.count == 1 else { return routeEach(events) }
        // The usual batch, one event, goes on as it came: no batch of its own per route, and no list of the
        // routes when it reaches one.
        let (only, others) = state.withLock { state -> (EventSubscriber<Entity>?, [EventSubscriber<Entity>]) in
            let targets = targets(of: events[0], in: &state)
            if targets.count == 1 { return (state.routes[targets.first!]?.subscriber, []) }
            return (nil, targets.sorted().compactMap { state.routes[$0]?.subscriber })
        }
        only?.receive(events)
        for subscriber in others { subscriber.receive(events) }
    }

    /// Delivers each event of `events` to the routes it can change, one batch per route, in order.
    @inlinable func routeEach(_ events: [EntityEvent<Entity>]) {
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
    @inlinable func targets(of event: EntityEvent<Entity>, in state: inout State) -> Set<Int> {
        // Sets taken whole (routes receiving everything, or those of one value of the index) allocate nothing:
        // most events reach one route.
        var targets = state.everything
        // Without an indexed route, every route receives every event, and nothing is seen.
        guard state.indexedRoutes > 0 else { return targets }
        switch event {
        case .invalidated:
            return Set(state.routes.keys)
        case .deleted(let id):
            if let old = state.seen.removeValue(forKey: id) { collect(old, from: state, into: &targets) }
        case .inserted(let entity), .updated(let entity):
            let values = seen(entity)
            if let old = state.seen.updateValue(values, forKey: entity.id), old != values {
                collect(old, from: state, into: &targets)
            }
            collect(values, from: state, into: &targets)
        }
        return targets
    }

    @inlinable func collect(_ values: Seen, from state: State, into targets: inout Set<Int>) {
        switch values {
        case .one(let value): collect(value, column: 0, from: state, into: &targets)
        case .many(let values):
            for (column, value) in values.enumerated() { collect(value, column: column, from: state, into: &targets) }
        }
    }

    @inlinable func collect(_ value: QueryValue, column: Int, from state: State, into targets: inout Set<Int>) {
        guard let routes = state.index[column][value] else { return }
        if targets.isEmpty { targets = routes } else { targets.formUnion(routes) }
    }

    /// The indexed columns' values of `entity`.
    @inlinable func seen(_ entity: Entity) -> Seen {
        columns.count == 1 ? .one(columns[0].value(of: entity)) : .many(columns.map { $0.value(of: entity) })
    }

    /// Reports an event the source could not decode to every route.
    @usableFromInline func broadcastMalformed(_ error: any Error) {
        let subscribers = state.withLock { $0.routes.values.map(\.subscriber) }
        for subscriber in subscribers { subscriber.reportMalformedEvent(error) }
    }
}
