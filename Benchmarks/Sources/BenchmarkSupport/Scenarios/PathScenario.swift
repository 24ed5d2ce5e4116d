import LiveResults

/// The paths a user's events take to a controller, set up from this module as a user's would be: a controller
/// that applies events called here, one that observes an `EventBus`, and `LiveQueryRegistry`s holding one query
/// of every row and 1,000 queries of one group each (an update reaches one of them).
///
/// Every path holds the same rows, in the same order; the events are score changes of random rows, so that
/// each stays in place, as an edit of a shown row does.
public final class PathScenario {
    /// A row of one of ``groups`` groups.
    public struct GroupedRow: QueryableEntity, Hashable {
        public var id: Int
        public var group: String
        public var score: Int

        public static let queryColumns: [QueryColumn<GroupedRow>] = [
            QueryColumn("id", \.id), QueryColumn("group", \.group), QueryColumn("score", \.score),
        ]
    }

    /// Rows in memory, fetched by group (or all of them), with one bus for the events of every query.
    public final class GroupedRows: QueryableSource {
        let all: [GroupedRow]
        let byGroup: [String: [GroupedRow]]
        public let bus = EventBus<GroupedRow>()

        init(_ rows: [GroupedRow]) {
            all = rows
            byGroup = Dictionary(grouping: rows, by: \.group)
        }

        public func fetchDefinition(for query: LiveQuery<GroupedRow>) -> FetchDefinition<GroupedRow> {
            let group = query.filters.first { $0.column == "group" }.flatMap { filter -> String? in
                if case .equal(.text(let group)) = filter.condition { group } else { nil }
            }
            let rows = group.map { byGroup[$0] ?? [] } ?? all
            return FetchDefinition(request: { rows }, isIncluded: query.isIncluded)
        }

        public func subscribe(_ subscriber: EventSubscriber<GroupedRow>) -> EventSubscription {
            bus.subscribe(subscriber)
        }
    }

    /// How an event reaches its controller.
    public enum Path: String, CaseIterable, Sendable {
        /// `apply` called here.
        case direct
        /// `publish` on a bus the controller observes.
        case bus
        /// `publish` on the source of a registry holding one query of every row.
        case registry
        /// `publish` on the source of a registry holding one query per group.
        case registryOfGroups = "registry-groups"
    }

    public static let groups = 1_000

    let direct: FetchedResultsController<GroupedRow>
    let observed: FetchedResultsController<GroupedRow>
    let bus = EventBus<GroupedRow>()
    let subscription: EventSubscription
    let one: (source: GroupedRows, registry: LiveQueryRegistry<GroupedRows>, held: [LiveQueryResults<GroupedRow>])
    let many: (source: GroupedRows, registry: LiveQueryRegistry<GroupedRows>, held: [LiveQueryResults<GroupedRow>])
    let rows: [GroupedRow]

    /// Loads `count` rows on every path.
    public init(count: Int) async throws {
        rows = (0..<count).map { GroupedRow(id: $0, group: "g\($0 % Self.groups)", score: $0) }
        let order = try LiveQuery<GroupedRow>().sortDescriptors
        let rows = rows
        direct = FetchedResultsController(definition: FetchDefinition(request: { rows }), sortDescriptors: order)
        try await direct.performFetch()
        observed = FetchedResultsController(definition: FetchDefinition(request: { rows }), sortDescriptors: order)
        try await observed.performFetch()
        subscription = observed.observe(bus)
        one = try await Self.registry(over: rows, queries: [LiveQuery()])
        many = try await Self.registry(
            over: rows,
            queries: try (0..<Self.groups).map { try LiveQuery(filters: [.equal("group", "g\($0)")]) })
    }

    /// A registry over its own copy of `rows`, holding `queries`.
    private static func registry(
        over rows: [GroupedRow], queries: [LiveQuery<GroupedRow>]
    ) async throws -> (
        source: GroupedRows, registry: LiveQueryRegistry<GroupedRows>, held: [LiveQueryResults<GroupedRow>]
    ) {
        let source = GroupedRows(rows)
        let registry = LiveQueryRegistry(source: source, indexing: ["group"], maximumQueries: queries.count)
        var held: [LiveQueryResults<GroupedRow>] = []
        for query in queries { held.append(try await registry.results(for: query)) }
        return (source, registry, held)
    }

    /// `count` score changes of random rows.
    public func updates(_ count: Int) -> [EntityEvent<GroupedRow>] {
        var random = SplitMix64(seed: Dataset.seed)
        return (0..<count).map { index in
            var row = rows.randomElement(using: &random)!
            row.score = -index
            return .updated(row)
        }
    }

    /// Delivers each of `events` alone along `path`.
    public func deliver(_ events: [EntityEvent<GroupedRow>], along path: Path) {
        switch path {
        case .direct: for event in events { direct.apply(event) }
        case .bus: for event in events { bus.publish(event) }
        case .registry: for event in events { one.source.bus.publish(event) }
        case .registryOfGroups: for event in events { many.source.bus.publish(event) }
        }
    }
}
