import LiveResults
import NIOConcurrencyHelpers

/// A table kept in memory: rows, and the events of their writes, as a queryable source.
///
/// A write changes the rows and publishes its events under one lock, so that every subscriber sees the writes
/// in the order the table made them, and a fetch sees a write either in its rows or as an event after it. A
/// write of several rows is all or nothing: `check` runs on every row before any is kept.
public final class MemoryTable<Row: TableRow>: QueryableSource {
    private struct Rows {
        var rows: [Row.ID: Row] = [:]
        var lastID: Int64 = 0
    }

    private let rows: NIOLockedValueBox<Rows>
    private let bus = EventBus<Row>()
    /// Checks a row before it is written (a foreign key); throws to refuse the write.
    private let check: @Sendable (Row) throws -> Void

    /// A table holding `rows`, their ids kept.
    public init(_ rows: [Row] = [], check: @escaping @Sendable (Row) throws -> Void = { _ in }) {
        self.rows = NIOLockedValueBox(
            Rows(
                rows: Dictionary(rows.map { ($0.id, $0) }) { $1 },
                lastID: rows.map(\.id).max() ?? 0))
        self.check = check
    }

    /// Fetches the rows `query` selects.
    ///
    /// - Complexity: O(*n*) for *n* rows.
    public func fetchDefinition(for query: LiveQuery<Row>) -> FetchDefinition<Row> {
        FetchDefinition(request: { [self] in select(query) }, isIncluded: query.isIncluded)
    }

    /// Delivers the events of every later write.
    ///
    /// - Complexity: O(1).
    public func subscribe(_ subscriber: EventSubscriber<Row>) -> EventSubscription {
        bus.subscribe(subscriber)
    }

    /// The rows `query` selects, by id.
    func select(_ query: LiveQuery<Row>) -> [Row] {
        rows.withLockedValue { $0.rows.values.filter(query.isIncluded) }.sorted(by: Self.byID)
    }

    /// Adds a row made of each input, with the next ids; none when one is refused.
    func insert<Input: RowInput>(_ inputs: [Input]) throws -> [Row] where Input.Row == Row {
        try rows.withLockedValue { rows in
            let inserted = inputs.enumerated().map { $1.row(id: rows.lastID + 1 + Int64($0)) }
            try inserted.forEach(check)
            rows.lastID += Int64(inserted.count)
            for row in inserted { rows.rows[row.id] = row }
            if !inserted.isEmpty { bus.publish(inserted.map { .inserted($0) }) }
            return inserted
        }
    }

    /// Changes the fields `input` sets of the rows `query` selects; none when one is refused.
    func update<Input: RowInput>(_ query: LiveQuery<Row>, with input: Input) throws -> [Row] where Input.Row == Row {
        try update(query, checking: true, input.applied)
    }

    /// Changes the rows `query` selects with `change`; none when `checking` and `check` refuses one.
    func update(_ query: LiveQuery<Row>, checking: Bool, _ change: (Row) -> Row) throws -> [Row] {
        try rows.withLockedValue { rows in
            let updated = rows.rows.values.filter(query.isIncluded).sorted(by: Self.byID).map(change)
            if checking { try updated.forEach(check) }
            for row in updated { rows.rows[row.id] = row }
            if !updated.isEmpty { bus.publish(updated.map { .updated($0) }) }
            return updated
        }
    }

    /// Removes the rows `query` selects.
    func delete(_ query: LiveQuery<Row>) -> [Row] {
        rows.withLockedValue { rows in
            let deleted = rows.rows.values.filter(query.isIncluded).sorted(by: Self.byID)
            for row in deleted { rows.rows[row.id] = nil }
            if !deleted.isEmpty { bus.publish(deleted.map { .deleted($0.id) }) }
            return deleted
        }
    }

    /// Orders rows by id (given in insertion order).
    private static func byID(_ first: Row, _ second: Row) -> Bool { first.id < second.id }

    /// Whether a row has `id`.
    func contains(_ id: Row.ID) -> Bool {
        rows.withLockedValue { $0.rows[id] != nil }
    }
}
