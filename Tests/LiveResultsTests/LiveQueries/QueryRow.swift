import LiveResults

/// A row with a column of each kind, for the live-query tests.
struct QueryRow: QueryableEntity, Hashable, Codable {
    var id: Int64
    var project: String
    var priority: Int
    var title: String
    var score: Double
    var done: Bool?

    static let queryColumns: [QueryColumn<QueryRow>] = [
        QueryColumn("id", \.id), QueryColumn("project", \.project), QueryColumn("priority", \.priority),
        QueryColumn("title", \.title), QueryColumn("score", \.score), QueryColumn("done", \.done),
    ]

    /// A random row with few distinct values per column, so that filters match some rows.
    static func random(id: Int64, using generator: inout some RandomNumberGenerator) -> QueryRow {
        QueryRow(
            id: id, project: ["a", "b", "c", "d"].randomElement(using: &generator)!,
            priority: Int.random(in: 0...4, using: &generator),
            title: ["x", "y", "z", "é", "Z"].randomElement(using: &generator)!,
            score: [0.5, 1, 2.5].randomElement(using: &generator)!,
            done: [true, false, nil].randomElement(using: &generator)!)
    }
}

/// Rows in memory as a queryable source: writes publish to the bus after changing the rows.
final class QueryRowStore: QueryableSource, Sendable {
    let rows = Locked<[Int64: QueryRow]>([:])
    let bus = EventBus<QueryRow>()
    let fetches = Locked(0)
    let failNextFetch = Locked(false)
    /// The next fetch publishes `.invalidated` while it runs, as a listener that starts during a fetch does;
    /// the fetches after it take 50 ms.
    let invalidateDuringNextFetch = Locked<Bool?>(false)

    func fetchDefinition(for query: LiveQuery<QueryRow>) -> FetchDefinition<QueryRow> {
        FetchDefinition(
            request: { [self] in
                fetches.withLock { $0 += 1 }
                let fails = failNextFetch.withLock { failing in
                    defer { failing = false }
                    return failing
                }
                if fails { throw StoreFailure() }
                let result = rows.withLock { $0.values.filter(query.isIncluded) }
                switch invalidateDuringNextFetch.withLock({ $0 }) {
                case true?:
                    invalidateDuringNextFetch.withLock { $0 = nil }
                    bus.publish(.invalidated)
                // Real time: a request that takes a while, so that events and other fetches meet it in flight.
                case nil: try await Task.sleep(for: .milliseconds(50))
                case false?: break
                }
                return result
            }, isIncluded: query.isIncluded)
    }

    func subscribe(_ subscriber: EventSubscriber<QueryRow>) -> EventSubscription { bus.subscribe(subscriber) }

    /// Counts the synchronizations; the next one throws while `failNextSynchronization` is set.
    let synchronizations = Locked(0)
    let failNextSynchronization = Locked(false)

    func synchronize() async throws {
        synchronizations.withLock { $0 += 1 }
        let fails = failNextSynchronization.withLock { failing in
            defer { failing = false }
            return failing
        }
        if fails { throw StoreFailure() }
    }

    func write(_ row: QueryRow) {
        let known = rows.withLock { $0.updateValue(row, forKey: row.id) != nil }
        bus.publish(known ? .updated(row) : .inserted(row))
    }

    func delete(_ id: Int64) {
        rows.withLock { _ = $0.removeValue(forKey: id) }
        bus.publish(.deleted(id))
    }

    /// Applies `events` to the rows in order (an insertion or update writes, whichever the row needs) and
    /// publishes them as one batch, as a source that delivers a transaction at once does.
    func write(batch events: [EntityEvent<QueryRow>]) {
        let published = rows.withLock { rows in
            events.map { event -> EntityEvent<QueryRow> in
                switch event {
                case .inserted(let row), .updated(let row):
                    return rows.updateValue(row, forKey: row.id) != nil ? .updated(row) : .inserted(row)
                case .deleted(let id):
                    rows[id] = nil
                    return event
                case .invalidated:
                    return event
                }
            }
        }
        bus.publish(published)
    }

    struct StoreFailure: Error {}
}
