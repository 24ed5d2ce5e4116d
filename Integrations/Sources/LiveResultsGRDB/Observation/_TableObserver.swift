import Foundation
import GRDB
import LiveResults
import NIOConcurrencyHelpers

/// The `TransactionObserver` behind one subscription of a ``GRDBLiveTable``.
///
/// GRDB calls it on the writer's serialized queue: its transaction state is only touched there. At each
/// commit it fetches the changed rows on the writer connection (the committed state, before any later
/// transaction) and hands the batch to its delivery queue, so that the subscriber runs outside the writer
/// (it may read or write the database) and receives the batches in commit order. What it reports as
/// malformed goes through the same queue, before its batch: the subscriber's handlers never run on the
/// writer's queue, where a database access would be reentrant.
final class _TableObserver<Record: FetchableRecord & TableRecord & FetchableEntity>: TransactionObserver,
    @unchecked Sendable
where Record.ID: BinaryInteger {
    // @unchecked Sendable: `changes` and `versions` are only touched on the writer's queue (GRDB
    // serializes every callback of a connection); the rest is immutable or behind a lock.

    private let liveTable: GRDBLiveTable<Record>
    private let subscriber: EventSubscriber<Record>
    /// The queue of the subscription's deliveries, in commit order.
    let deliveryQueue: DispatchQueue
    private let cancellation = NIOLockedValueBox(false)
    private var changes = _TransactionChanges()
    private var versions: _Versions?
    /// The SQL of the changed-rows query, generated once from the record's request (see
    /// ``changedRowsSQL(_:)``); `nil` when that request cannot be reused so, and is built at each commit.
    private var changedRowsSQL: String?

    /// The schema and data versions of the writer connection at the end of the last transaction.
    struct _Versions: Equatable {
        var schema: Int
        var data: Int
    }

    init(liveTable: GRDBLiveTable<Record>, subscriber: EventSubscriber<Record>) {
        self.liveTable = liveTable
        self.subscriber = subscriber
        self.deliveryQueue = DispatchQueue(label: "LiveResultsGRDB.\(liveTable.table)")
    }

    /// Called once, on the writer, when the observer is added.
    func start(_ db: Database) throws {
        versions = try Self.versions(db)
        changedRowsSQL = (try? Self.changedRowsSQL(in: liveTable, db)) ?? nil
    }

    /// Stops every delivery; the batches already handed to the delivery queue are dropped too.
    func cancel() {
        cancellation.withLockedValue { $0 = true }
    }

    /// Whether the subscription was cancelled.
    var isCancelled: Bool { cancellation.withLockedValue { $0 } }

    /// Reports a malformed event to the subscriber, on the delivery queue.
    func report(_ error: any Error) {
        deliver([], malformed: [error])
    }

    static func versions(_ db: Database) throws -> _Versions {
        let schema = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA schema_version")) ?? 0
        let data = try Int.fetchOne(db.cachedStatement(sql: "PRAGMA data_version")) ?? 0
        return _Versions(schema: schema, data: data)
    }

    // MARK: TransactionObserver

    func observes(eventsOfKind eventKind: DatabaseEventKind) -> Bool {
        // Observing the deletions also disables SQLite's truncate optimisation on the table.
        eventKind.tableName.caseInsensitiveCompare(liveTable.table) == .orderedSame
    }

    func databaseDidChange(with event: DatabaseEvent) {
        changes.record(rowID: event.rowID, kind: event.kind)
    }

    func databaseDidChange() {
        // `Database.notifyChanges(in:)` with a region that holds the table: unknown changes.
        changes.invalidate()
    }

    func databaseDidCommit(_ db: Database) {
        var committed = changes
        changes = _TransactionChanges()
        // Changes no row event describes: the schema (ALTER TABLE, DROP, a restore with backup(to:)) or
        // commits by other connections on the same file.
        if let now = try? Self.versions(db) {
            if let versions, versions != now { committed.invalidate() }
            versions = now
        }
        guard !committed.isEmpty, !isCancelled else { return }
        if committed.isInvalidated {
            deliver([.invalidated])
            return
        }
        var malformed: [any Error] = []
        let events = events(for: committed, db, malformed: &malformed)
        deliver(events, malformed: malformed)
    }

    func databaseDidRollback(_ db: Database) {
        changes = _TransactionChanges()
    }

    // MARK: Events

    /// The events of a committed transaction: the rows still present, fetched by rowid in one query, as
    /// inserted (when first inserted in the transaction) or updated; the others as deleted. What does not
    /// decode is added to `malformed`.
    private func events(
        for committed: _TransactionChanges, _ db: Database, malformed: inout [any Error]
    ) -> [EntityEvent<Record>] {
        let table = liveTable.table
        let rowIDs = committed.rowIDs
        var fetched: [Int64: Record] = [:]
        var undecodable: Set<Int64> = []
        do {
            let json = Self.json(rowIDs)
            let rows: RowCursor
            if let changedRowsSQL {
                // GRDB keeps the prepared statement: no SQL generation nor preparation per commit.
                let statement = try db.cachedStatement(sql: changedRowsSQL)
                statement.setUncheckedArguments([json])
                rows = try Row.fetchCursor(statement)
            } else {
                rows = try Row.fetchCursor(db, Self.changedRowsRequest(json: json, in: liveTable))
            }
            while let row = try rows.next() {
                let rowID: Int64 = row[row.count - 1]  // the annotation, after the record's own selection
                do {
                    let record = try Record(row: row)
                    guard Int64(exactly: record.id) == rowID else {
                        undecodable.insert(rowID)
                        malformed.append(GRDBLiveTableError.idIsNotRowID(table: table, rowID: rowID))
                        continue
                    }
                    fetched[rowID] = record
                } catch {
                    undecodable.insert(rowID)
                    malformed.append(
                        GRDBLiveTableError.undecodableRecord(table: table, rowID: rowID, underlying: error))
                }
            }
        } catch {
            malformed.append(GRDBLiveTableError.changedRowsFetchFailed(table: table, underlying: error))
            return [.invalidated]
        }
        var events: [EntityEvent<Record>] = []
        events.reserveCapacity(rowIDs.count)
        for rowID in rowIDs {
            if let record = fetched[rowID] {
                events.append(committed.wasInserted(rowID) ? .inserted(record) : .updated(record))
            } else if !undecodable.contains(rowID) {
                guard let id = liveTable.id(forRowID: rowID) else {
                    malformed.append(GRDBLiveTableError.idIsNotRowID(table: table, rowID: rowID))
                    continue
                }
                events.append(.deleted(id))
            }
        }
        return events
    }

    /// The column that carries each fetched row's rowid, beside the record's own selection.
    static var rowIDKey: String { "_liveresults_rowid" }

    /// The record's own request for the rows whose rowids are in `json` (a JSON array), with their rowids
    /// as the last column: one query, one bound value, however many rows.
    static func changedRowsRequest(json: String, in liveTable: GRDBLiveTable<Record>) -> QueryInterfaceRequest<Row> {
        liveTable.allRecords()
            .filter(literal: "\(Column.rowID) IN (SELECT value FROM json_each(\(json)))")
            .annotated(with: Column.rowID.forKey(rowIDKey))
            .asRequest(of: Row.self)
    }

    /// The SQL of ``changedRowsRequest(json:in:)``, whose only bound value is the JSON array: generating it
    /// from the query interface and preparing it cost more than the rest of a one-row commit, so it is done
    /// once and the statement comes from GRDB's cache. `nil` when the record's selection binds values of its
    /// own or needs a row adapter: then the request is built at each commit.
    ///
    /// The SQL selects the record's columns as the request does (`*` by default), so a schema change is
    /// handled by SQLite, which prepares the statement again.
    static func changedRowsSQL(in liveTable: GRDBLiveTable<Record>, _ db: Database) throws -> String? {
        let placeholder = "[]"
        let prepared = try changedRowsRequest(json: placeholder, in: liveTable)
            .makePreparedRequest(db, forSingleResult: false)
        guard prepared.adapter == nil, prepared.statement.arguments == [placeholder] else { return nil }
        return prepared.statement.sql
    }

    /// The rowids as a JSON array.
    static func json(_ rowIDs: [Int64]) -> String {
        var json = "["
        json.reserveCapacity(rowIDs.count * 8)
        for (index, rowID) in rowIDs.enumerated() {
            if index > 0 { json += "," }
            json += String(rowID)
        }
        json += "]"
        return json
    }

    /// Hands a batch, and the malformed events reported before it, to the delivery queue.
    private func deliver(_ events: [EntityEvent<Record>], malformed: [any Error] = []) {
        guard !events.isEmpty || !malformed.isEmpty else { return }
        deliveryQueue.async { [self] in
            guard !isCancelled else { return }
            for error in malformed { subscriber.reportMalformedEvent(error) }
            if !events.isEmpty { subscriber.receive(events) }
        }
    }
}
