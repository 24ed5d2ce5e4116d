import Foundation

/// What a ``GRDBLiveTable`` reports: through a failed fetch, or to the controller as a malformed event.
public enum GRDBLiveTableError: Error, Sendable, CustomStringConvertible {
    /// The table does not exist in the database.
    case tableNotFound(table: String)
    /// The table's primary key is not its rowid: a `WITHOUT ROWID` table, or a key other than an
    /// `INTEGER PRIMARY KEY` (or the hidden rowid). SQLite does not report the changes of a `WITHOUT ROWID`
    /// table to GRDB's observers, and a deleted row's id must be its rowid, so such a table cannot be live.
    case primaryKeyIsNotRowID(table: String)
    /// A changed row did not decode into the record type (for example a `NULL` written by raw SQL into a
    /// column the record does not make optional). The row is left out of its batch; the controller keeps
    /// the version it shows.
    case undecodableRecord(table: String, rowID: Int64, underlying: any Error)
    /// A record's id is not its row's rowid, or a rowid does not fit the record's id type.
    case idIsNotRowID(table: String, rowID: Int64)
    /// Fetching the rows a transaction changed failed; the subscription sent `EntityEvent.invalidated`
    /// instead, so the controller refetches.
    case changedRowsFetchFailed(table: String, underlying: any Error)
    /// The subscription could not start observing the table (a database error, or one of the cases above).
    case subscriptionFailed(table: String, underlying: any Error)

    /// A sentence that says what happened.
    public var description: String {
        switch self {
        case .tableNotFound(let table):
            "no table \(table.debugDescription) in the database"
        case .primaryKeyIsNotRowID(let table):
            "the primary key of \(table.debugDescription) is not its rowid (WITHOUT ROWID, or not an INTEGER PRIMARY KEY): "
                + "its changes cannot be observed row by row"
        case .undecodableRecord(let table, let rowID, let underlying):
            "the row \(rowID) of \(table.debugDescription) does not decode: \(underlying)"
        case .idIsNotRowID(let table, let rowID):
            "the record of row \(rowID) of \(table.debugDescription) has another id than its rowid"
        case .changedRowsFetchFailed(let table, let underlying):
            "fetching the changed rows of \(table.debugDescription) failed (the controller refetches): \(underlying)"
        case .subscriptionFailed(let table, let underlying):
            "observing \(table.debugDescription) failed: \(underlying)"
        }
    }
}
