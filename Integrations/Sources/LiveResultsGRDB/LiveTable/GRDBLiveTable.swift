import Foundation
import GRDB
import LiveResults

/// One SQLite table's records as live results, through GRDB: fetch definitions for its records, and an
/// `EventSource` that tells a controller which records each committed transaction changed.
///
/// The source is a GRDB `TransactionObserver` on the writer's connection. It collects the rowids a
/// transaction inserts, updates and deletes; when the transaction commits, it fetches the inserted and
/// updated rows by rowid in one query (deletions need no fetch) and delivers them as one batch, so the
/// controller publishes one change set per transaction, at the cost of the change rather than of the
/// query. A rolled-back transaction (or savepoint) delivers nothing.
///
/// ```swift
/// let dbPool = try DatabasePool(path: path)
/// let players = GRDBLiveTable<Player>(dbPool)
/// let controller = FetchedResultsController(
///     definition: players.fetchDefinition(Player.filter(Column("score") > 100)) { $0.score > 100 },
///     sortDescriptors: [SortDescriptor(\Player.score, order: .reverse)])
/// let subscription = controller.observe(players)
/// try await controller.performFetch()
/// ```
///
/// **The id is the rowid.** A deleted row is gone when its transaction commits: GRDB only gives its
/// rowid. So `Record.id` must be the row's rowid — an `INTEGER PRIMARY KEY` column (or the hidden rowid,
/// selected into the record) — and `Record.ID` an integer type. A `WITHOUT ROWID` table, or one keyed by
/// anything else, is refused: its fetches throw and its subscriptions report
/// ``GRDBLiveTableError/primaryKeyIsNotRowID(table:)`` (SQLite does not even report the changes of a
/// `WITHOUT ROWID` table to observers).
///
/// **What cannot be attributed to rows sends `EntityEvent.invalidated`** (the controller refetches and
/// its change set says what changed): a schema change (`PRAGMA schema_version` moved — `ALTER TABLE`, a
/// restore with `backup(to:)`), a commit by another connection or process on the same file (`PRAGMA
/// data_version` moved), and `Database.notifyChanges(in:)` for a region that contains the table. Those
/// checks run when a transaction of the observed writer commits; after writing the file from elsewhere,
/// `try db.notifyChanges(in: Table(table))` tells every subscription at once. SQLite's truncate
/// optimisation never applies to an observed table (GRDB disables it), so `DELETE FROM table` arrives as
/// the deletions of its rows.
///
/// Works with `DatabaseQueue` and `DatabasePool`, with writes from any connection of the writer
/// (records, the query interface, raw SQL), and with any number of controllers on one table.
///
/// **It never blocks a task's thread.** Fetches use GRDB's `async` reads; `subscribe` only schedules its
/// observer on the writer's queue and returns, and this table's fetches wait (suspended) until the
/// observers scheduled before them are in place, so a commit that follows a fetch's read is never missed.
/// Use the same `GRDBLiveTable` for a controller's definition and its `observe(_:)`.
public final class GRDBLiveTable<Record: FetchableRecord & TableRecord & FetchableEntity>: Sendable
where Record.ID: BinaryInteger {
    /// The database the records live in: its writer connection is observed, its readers fetch.
    public let writer: any DatabaseWriter
    /// The observed table's name, `Record.databaseTableName` by default.
    public let table: String
    /// The subscriptions' observers scheduled on the writer queue, which this table's fetches wait for.
    let installations = _ObserverInstallations()
    /// The live subscriptions' delivery queues, which ``synchronize()`` waits for.
    let deliveryQueues = _DeliveryQueues()

    /// Creates the live form of a table. Nothing touches the database until it is used.
    ///
    /// - Parameters:
    ///   - writer: A `DatabaseQueue` or a `DatabasePool`.
    ///   - table: The table's name; `Record.databaseTableName` by default.
    public init(_ writer: any DatabaseWriter, table: String = Record.databaseTableName) {
        self.writer = writer
        self.table = table
    }

    /// Throws unless the table exists and its primary key is its rowid.
    ///
    /// - Complexity: O(*c*) for *c* columns, once per connection (GRDB caches the schema).
    func validate(_ db: Database) throws {
        guard try db.tableExists(table) else { throw GRDBLiveTableError.tableNotFound(table: table) }
        // GRDB reports an INTEGER PRIMARY KEY of a WITHOUT ROWID table as a rowid: ask SQLite for the rowid.
        guard try db.primaryKey(table).isRowID,
            (try? db.cachedStatement(sql: "SELECT rowid FROM \(table.quotedDatabaseIdentifier) LIMIT 0")) != nil
        else { throw GRDBLiveTableError.primaryKeyIsNotRowID(table: table) }
    }

    /// Every record of the table, with the record's own selection when the table is the record's.
    func allRecords() -> QueryInterfaceRequest<Record> {
        table == Record.databaseTableName ? Record.all() : Table<Record>(table).all()
    }

    /// The id of the record at `rowID`, or `nil` when the rowid does not fit `Record.ID`.
    func id(forRowID rowID: Int64) -> Record.ID? {
        Record.ID(exactly: rowID)
    }
}
