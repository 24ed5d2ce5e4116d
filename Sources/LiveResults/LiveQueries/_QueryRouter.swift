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

        /// How many values: one per indexed column.
        @inlinable var count: Int {
            switch self {
            case .one: 1
            case .many(let values): values.count
            }
        }

        /// The value of the indexed column `column`.
        @inlinable subscript(column: Int) -> QueryValue {
            switch self {
            case .one(let value): value
            case .many(let values): values[column]
            }
        }
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

    /// Where a batch goes: decided under the lock, delivered after it.
    @usableFromInline enum Delivery {
        /// The batch as it came, to one route: the usual case (one query, or every event reaching the same one).
        case one(EventSubscriber<Entity>)
        /// The batch as it came, to each of these routes, in order.
        case whole([EventSubscriber<Entity>])
        /// Each route its own events of the batch, in order.
        case parts([(EventSubscriber<Entity>, [EntityEvent<Entity>])])
    }

    /// What an event changed of what was seen: the values its entity had and has, for the index.
    @usableFromInline struct Reach {
        /// An invalidation: every route.
        @usableFromInline var everyRoute = false
        /// The values the entity was seen with, when the event moves it off them.
        @usableFromInline var old: Seen?
        /// The values the entity has now; `nil` for a deletion.
        @usableFromInline var new: Seen?

        @usableFromInline init(everyRoute: Bool = false, old: Seen? = nil, new: Seen? = nil) {
            self.everyRoute = everyRoute
            self.old = old
            self.new = new
        }
    }

    /// Delivers each event of `events` to the routes it can change, one batch per route, in order.
    ///
    /// A batch whose events all reach the same one route goes on as it came: no dictionary, no list and no
    /// batch of its own, whatever its size. Otherwise each route receives a batch of its events, and the
    /// targets of an event are enumerated where they are kept (the set of routes that receive everything, the
    /// index's sets of its values), not gathered into a set of their own.
    @inlinable func route(_ events: [EntityEvent<Entity>]) {
        switch state.withLock({ delivery(of: events, in: &$0) }) {
        case .one(let subscriber): subscriber.receive(events)
        case .whole(let subscribers): for subscriber in subscribers { subscriber.receive(events) }
        case .parts(let parts): for (subscriber, events) in parts { subscriber.receive(events) }
        }
    }

    /// Delivers `event` to the routes it can change, as ``route(_:)-([EntityEvent<Entity>])`` does a batch of one,
    /// without a batch of its own.
    @inlinable func route(_ event: EntityEvent<Entity>) {
        switch state.withLock({ delivery(of: event, in: &$0) }) {
        case .one(let subscriber): subscriber.receive(event)
        case .whole(let subscribers): for subscriber in subscribers { subscriber.receive(event) }
        case .parts: preconditionFailure("a single event is delivered whole")
        }
    }

    /// Where `event` goes, updating what was seen of its entity: to one route, or to each of several in order.
    @inlinable func delivery(of event: EntityEvent<Entity>, in state: inout State) -> Delivery {
        guard state.indexedRoutes > 0 else { return everyRoute(in: state) }
        let reach = see(event, in: &state)
        if let only = onlyTarget(of: reach, in: state) { return one(only, in: state) }
        var targets: [Int] = []
        forEachTarget(of: reach, in: state) { targets.append($0) }
        return whole(targets.sorted(), in: state)
    }

    /// Without an indexed route, every route receives every event, and nothing is seen.
    @inlinable func everyRoute(in state: State) -> Delivery {
        if state.everything.count == 1 { return one(state.everything.first!, in: state) }
        return whole(state.everything.sorted(), in: state)
    }

    /// Where `events` go, updating what was seen of their entities.
    @inlinable func delivery(of events: [EntityEvent<Entity>], in state: inout State) -> Delivery {
        guard state.indexedRoutes > 0 else { return everyRoute(in: state) }
        if events.count == 1 { return delivery(of: events[0], in: &state) }
        // While every event reaches the one route `solo`, nothing is gathered; from the first that does not,
        // each route's events are.
        var solo: Int?
        var parted = false
        var parts: [Int: [EntityEvent<Entity>]] = [:]
        for (offset, event) in events.enumerated() {
            let reach = see(event, in: &state)
            if !parted {
                if let only = onlyTarget(of: reach, in: state), offset == 0 || only == solo {
                    solo = only
                    continue
                }
                parted = true
                if let solo { parts[solo] = Array(events[..<offset]) }
            }
            forEachTarget(of: reach, in: state) { parts[$0, default: []].append(event) }
        }
        guard parted else { return solo.map { one($0, in: state) } ?? .whole([]) }
        return .parts(
            parts.sorted { $0.key < $1.key }.compactMap { id, events in
                state.routes[id].map { ($0.subscriber, events) }
            })
    }

    /// The batch as it came, to route `id`.
    @inlinable func one(_ id: Int, in state: State) -> Delivery {
        state.routes[id].map { .one($0.subscriber) } ?? .whole([])
    }

    /// The batch as it came, to the routes `ids`, in their order.
    @inlinable func whole(_ ids: [Int], in state: State) -> Delivery {
        ids.count == 1 ? one(ids[0], in: state) : .whole(ids.compactMap { state.routes[$0]?.subscriber })
    }

    /// Records what `event` changes of what was seen of its entity, and returns it.
    @inlinable func see(_ event: EntityEvent<Entity>, in state: inout State) -> Reach {
        switch event {
        case .invalidated:
            return Reach(everyRoute: true)
        case .deleted(let id):
            return Reach(old: state.seen.removeValue(forKey: id))
        case .inserted(let entity), .updated(let entity):
            let values = seen(entity)
            let old = state.seen.updateValue(values, forKey: entity.id)
            return Reach(old: old == values ? nil : old, new: values)
        }
    }

    /// The route an event reaches when it reaches exactly one; `nil` when it reaches none or several.
    @inlinable func onlyTarget(of reach: Reach, in state: State) -> Int? {
        // The usual update: one indexed column, a value the entity was seen with already, no route receiving
        // everything. Its routes are the one set of its value: one lookup, no enumeration.
        if !reach.everyRoute, reach.old == nil, state.everything.isEmpty, case .one(let value)? = reach.new {
            guard let routes = state.index[0][value], routes.count == 1 else { return nil }
            return routes.first
        }
        var only: Int?
        var several = false
        forEachTargetWhile(of: reach, in: state) { id in
            if only == nil {
                only = id
                return true
            }
            several = true
            return false
        }
        return several ? nil : only
    }

    /// Calls `body` once with each route an event reaches, in no particular order.
    @inlinable func forEachTarget(of reach: Reach, in state: State, _ body: (Int) -> Void) {
        forEachTargetWhile(of: reach, in: state) { id in
            body(id)
            return true
        }
    }

    /// Calls `body` once with each route an event reaches, in no particular order, until it returns `false`.
    ///
    /// The routes are those that receive everything, then those of each value of the index the entity had and
    /// has: each is visited in the first set that holds it, so that none is visited twice and nothing is
    /// gathered.
    @inlinable func forEachTargetWhile(of reach: Reach, in state: State, _ body: (Int) -> Bool) {
        if reach.everyRoute {
            for id in state.routes.keys where !body(id) { return }
            return
        }
        for id in state.everything where !body(id) { return }
        let oldCount = reach.old?.count ?? 0
        /// The routes indexed under the `k`th value, of the old values then of the new ones.
        func routes(_ k: Int) -> Set<Int>? {
            let (values, column) = k < oldCount ? (reach.old!, k) : (reach.new!, k - oldCount)
            return state.index[column][values[column]]
        }
        for k in 0..<(oldCount + (reach.new?.count ?? 0)) {
            guard let set = routes(k) else { continue }
            for id in set
            where !state.everything.contains(id) && !(0..<k).contains(where: { routes($0)?.contains(id) == true }) {
                if !body(id) { return }
            }
        }
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
