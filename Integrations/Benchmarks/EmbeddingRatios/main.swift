// A person's rename, with embedded rows kept live by a live-queries route's embeddings: 1,000 live queries of
// which 10 show the person, against 10 queries that all show them. A rename should cost the queries that show
// the person, not every live query: target ≤ 1.5×.
//
//   swift run -c release EmbeddingRatios [--renames N]
//
// The queries are those a route's streams hold (`todos?select=id,title,assignee:people(id,name)&priority=eq.K`),
// through the serving core's embeddings (one subscription to `people` for all of them), over tables in memory.
// Each rename is timed from the write until the 10 queries' controllers applied it.

import Foundation
import LiveResults
import LiveResultsServing
import Synchronization

struct Person: QueryableEntity, Codable {
    var id: Int64
    var name: String
    static let queryColumns: [QueryColumn<Person>] = [QueryColumn("id", \.id), QueryColumn("name", \.name)]
}

struct Todo: QueryableEntity, Codable {
    var id: Int64
    var title: String
    var priority: Int
    var assignee_id: Int64?
    static let queryColumns: [QueryColumn<Todo>] = [
        QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("priority", \.priority),
        QueryColumn("assignee_id", \.assignee_id),
    ]
}

/// A table in memory: each write publishes its events as one batch; a fetch by `in` on the id reads only those
/// rows (as an index would), any other fetch every row.
final class Table<Entity: QueryableEntity & Codable>: QueryableSource where Entity.ID == Int64 {
    private let rows: Mutex<[Int64: Entity]>
    private let bus = EventBus<Entity>()

    init(_ rows: [Entity]) { self.rows = Mutex(Dictionary(uniqueKeysWithValues: rows.map { ($0.id, $0) })) }

    func fetchDefinition(for query: LiveQuery<Entity>) -> FetchDefinition<Entity> {
        FetchDefinition(
            request: {
                if let filter = query.filters.first(where: { $0.column == "id" }), case .in(let ids) = filter.condition
                {
                    return self.rows.withLock { rows in
                        ids.compactMap { if case .integer(let id) = $0 { rows[id] } else { nil } }
                            .filter(query.isIncluded)
                    }
                }
                return self.rows.withLock { $0.values.filter(query.isIncluded) }
            }, isIncluded: query.isIncluded)
    }

    func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription { bus.subscribe(subscriber) }

    func write(_ entity: Entity) {
        rows.withLock { $0[entity.id] = entity }
        bus.publish([.updated(entity)])
    }
}

/// Counts the change sets delivered to the controllers that show the person, and wakes the measurement when
/// all of them have one more.
final class Arrivals: Sendable {
    private let state = Mutex((count: 0, target: Int.max, waiter: CheckedContinuation<Void, Never>?.none))

    func arrived() {
        let waiter: CheckedContinuation<Void, Never>? = state.withLock { state in
            state.count += 1
            guard state.count >= state.target, let waiter = state.waiter else { return nil }
            state.waiter = nil
            return waiter
        }
        waiter?.resume()
    }

    func wait(for target: Int) async {
        await withCheckedContinuation { continuation in
            let ready = state.withLock { state in
                state.target = target
                if state.count >= target { return true }
                state.waiter = continuation
                return false
            }
            if ready { continuation.resume() }
        }
    }
}

/// The mean time of a rename with `queries` live queries, 10 of which show the renamed person.
func measure(queries: Int, renames: Int) async throws -> Duration {
    let perQuery = 5
    let people = Table((1...1_000).map { Person(id: Int64($0), name: "p\($0)") })
    // Query K holds the to-dos of priority K; the first of each of the 10 last queries is the person 1's.
    let showing = Set((queries - 10)..<queries)
    let todos = Table(
        (0..<queries).flatMap { query in
            (0..<perQuery).map { index in
                let id = Int64(query * perQuery + index + 1)
                let assignee: Int64 = index == 0 && showing.contains(query) ? 1 : 2 + id % 999
                return Todo(id: id, title: "t\(id)", priority: query, assignee_id: assignee)
            }
        })
    var relations = LiveRelations()
    relations.addTable("todos", source: todos)
    relations.addTable("people", source: people)
    relations.addForeignKey(from: "todos", column: "assignee_id", to: "people")
    let route = _LiveQueryRoute(
        path: "todos", filters: ["priority"], orders: ["id"], defaultOrder: [], sections: [], maximumLimit: 500,
        relations: relations, respondsItself: { _ in false })
    let embeddings = _LiveEmbeddings(registry: LiveQueryRegistry(source: todos), route: route)
    let select = try SelectList(parsing: "id,title,assignee:people(id,name)")
    let arrivals = Arrivals()
    var held: [Any] = []
    for query in 0..<queries {
        let live = try LiveQuery<Todo>(filters: [.equal("priority", query)], order: [LiveQueryOrdering(column: "id")])
        let hold = try await embeddings.embedding(of: select, in: live)
        let embedding = hold.embedding
        held.append(hold)
        if showing.contains(query) {
            let (_, subscription) = embedding.controller.observeChanges { _, _ in arrivals.arrived() }
            held.append(subscription)
        }
    }
    let clock = ContinuousClock()
    var total = Duration.zero
    for rename in 1...renames {
        let start = clock.now
        people.write(Person(id: 1, name: "renamed \(rename)"))
        await arrivals.wait(for: rename * 10)
        total += start.duration(to: clock.now)
    }
    withExtendedLifetime(held) {}
    return total / renames
}

let arguments = CommandLine.arguments
let renames = arguments.firstIndex(of: "--renames").flatMap { Int(arguments[$0 + 1]) } ?? 2_000
// Warm up both, then measure each twice, interleaved, and keep the better of each.
_ = try await measure(queries: 10, renames: 200)
_ = try await measure(queries: 1_000, renames: 200)
var few = Duration.seconds(3_600)
var many = Duration.seconds(3_600)
for _ in 0..<2 {
    few = min(few, try await measure(queries: 10, renames: renames))
    many = min(many, try await measure(queries: 1_000, renames: renames))
}
func microseconds(_ duration: Duration) -> String {
    String(
        format: "%.1f µs", Double(duration.components.attoseconds) / 1e12 + Double(duration.components.seconds) * 1e6)
}
let ratio =
    (Double(many.components.attoseconds) + Double(many.components.seconds) * 1e18)
    / (Double(few.components.attoseconds) + Double(few.components.seconds) * 1e18)
print("rename, 10 of 10 live queries show the person:    \(microseconds(few))")
print("rename, 10 of 1,000 live queries show the person: \(microseconds(many))")
print(String(format: "ratio: %.2f× (target ≤ 1.5×)", ratio))
