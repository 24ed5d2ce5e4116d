import BenchmarkSupport
import Foundation
import LiveResults

/// The paths a user's events take to a controller, measured from this module as a user's would be: per single
/// update at the medium size through an `EventBus` the controller observes, and through a `LiveQueryRegistry` with
/// one query and with 1,000 (an event reaching one), each against `apply` called here, where the compiler
/// specializes it. Generic code that runs unspecialized (compiled once in `LiveResults`, called through
/// type-erased subscribers) shows here as a ratio well above 1.
@MainActor
struct PathRatios {
    let options: RatioOptions

    /// A row of one of 1,000 groups.
    struct Row: QueryableEntity, Hashable {
        var id: Int
        var group: String
        var score: Int

        static let queryColumns: [QueryColumn<Row>] = [
            QueryColumn("id", \.id), QueryColumn("group", \.group), QueryColumn("score", \.score),
        ]
    }

    /// Rows in memory, fetched by group (or all of them), with one bus for the events of every query.
    final class Rows: QueryableSource {
        let all: [Row]
        let byGroup: [String: [Row]]
        let bus = EventBus<Row>()

        init(_ rows: [Row]) {
            all = rows
            byGroup = Dictionary(grouping: rows, by: \.group)
        }

        func fetchDefinition(for query: LiveQuery<Row>) -> FetchDefinition<Row> {
            let group = query.filters.first { $0.column == "group" }.flatMap { filter -> String? in
                if case .equal(.text(let group)) = filter.condition { group } else { nil }
            }
            let rows = group.map { byGroup[$0] ?? [] } ?? all
            return FetchDefinition(request: { rows }, isIncluded: query.isIncluded)
        }

        func subscribe(_ subscriber: EventSubscriber<Row>) -> EventSubscription { bus.subscribe(subscriber) }
    }

    static let groups = 1_000

    func rows() async throws -> [RatioRow] {
        let (count, size) = (options.medium, Dataset.label(options.medium))
        Progress.say("single updates at \(size): apply here, through an EventBus, a registry of 1 query and of 1,000")
        let rows = (0..<count).map { Row(id: $0, group: "g\($0 % Self.groups)", score: $0) }
        let order = try LiveQuery<Row>().sortDescriptors
        let direct = FetchedResultsController(
            definition: FetchDefinition(request: { rows }), sortDescriptors: order)
        try await direct.performFetch()
        let observed = FetchedResultsController(
            definition: FetchDefinition(request: { rows }), sortDescriptors: order)
        try await observed.performFetch()
        let bus = EventBus<Row>()
        let subscription = observed.observe(bus)
        let one = try await registry(over: rows, queries: [LiveQuery()])
        let many = try await registry(
            over: rows, queries: try (0..<Self.groups).map { try LiveQuery(filters: [.equal("group", "g\($0)")]) })
        let events = updates(of: rows)
        let applied: Stopwatch.Measurement = {
            await Stopwatch.measure { for event in events { direct.apply(event) } } / events.count
        }
        let times = try await Stopwatch.medians(
            options.repetitions,
            of: [
                applied, publishing(events, on: bus), publishing(events, on: one.source.bus),
                publishing(events, on: many.source.bus),
            ])
        withExtendedLifetime((subscription, one, many)) {}
        let measured =
            "apply \(times[0].formatted), bus \(times[1].formatted), registry of 1 \(times[2].formatted), "
            + "of \(Self.groups) \(times[3].formatted)"
        return [
            RatioRow(
                name: "A single update at \(size) through an observed EventBus / apply here",
                measured: measured, value: times[1] / times[0], unit: "×", target: .atMost(1.5)),
            RatioRow(
                name: "A single update at \(size) through a registry of 1 query / apply here",
                measured: measured, value: times[2] / times[0], unit: "×", target: .atMost(1.5)),
            RatioRow(
                name: "A single update at \(size) through a registry of \(Self.groups) queries / apply here",
                measured: measured, value: times[3] / times[0], unit: "×", target: .atMost(1.5)),
        ]
    }

    /// A registry over its own copy of `rows`, holding `queries`.
    private func registry(
        over rows: [Row], queries: [LiveQuery<Row>]
    ) async throws -> (source: Rows, registry: LiveQueryRegistry<Rows>, held: [LiveQueryResults<Row>]) {
        let source = Rows(rows)
        let registry = LiveQueryRegistry(source: source, indexing: ["group"], maximumQueries: queries.count)
        var held: [LiveQueryResults<Row>] = []
        for query in queries { held.append(try await registry.results(for: query)) }
        return (source, registry, held)
    }

    /// Publishes each of `events` alone on `bus`.
    private func publishing(_ events: [EntityEvent<Row>], on bus: EventBus<Row>) -> Stopwatch.Measurement {
        { await Stopwatch.measure { for event in events { bus.publish(event) } } / events.count }
    }

    /// Score changes of random rows: each stays in place (the order is by id), as an edit of a shown row does.
    private func updates(of rows: [Row]) -> [EntityEvent<Row>] {
        var random = SystemRandomNumberGenerator()
        return (0..<options.liveEvents).map { index in
            var row = rows.randomElement(using: &random)!
            row.score = -index
            return .updated(row)
        }
    }
}
