import Foundation

/// The notifications of one transaction, gathered until the last of them (`end`, or format 1's `commit`
/// marker) or a notification of another transaction says that they are all there.
///
/// Notifications of one transaction arrive together, in the order they were sent, after it committed:
/// PostgreSQL queues a transaction's notifications in one piece at commit, in commit order. So the batch
/// of a transaction is complete at its last notification; a notification of another transaction completes
/// it too (for notifications sent without `end`, by hand).
struct _TransactionBatch: Sendable {
    /// What one notification asks for, decoded only when its batch is delivered.
    enum Item: Sendable {
        /// A `TRUNCATE`, or a reconnection: the subscriber is sent `invalidated`.
        case invalidated
        /// An inserted or updated row; `id` is the id's JSON, for messages.
        case row(_Notification.Row, isInsert: Bool, id: String)
        /// A deleted row's id, as JSON.
        case deleted(id: String)
        /// A row too large for its notification, to fetch by its id (JSON).
        case fetch(id: String, isInsert: Bool)
        /// Not an event: an action to run once every transaction queued before it reached the subscriber
        /// (alone in its transaction; a change feed's fetch waits on it).
        case marker(_DeliveryMarker)

        var needsFetch: Bool {
            if case .fetch = self { true } else { false }
        }
    }

    /// The transaction the items belong to.
    private var transaction: String?
    /// The items, in the order of their notifications.
    private var items: [Item] = []

    /// Adds a notification, appending the batches it completed (none, one, or two: the previous
    /// transaction's and its own) to `completed`; returns the error that makes it malformed (the batches it
    /// completed still are).
    mutating func add(_ notification: _Notification, payload: String, completing completed: inout [[Item]])
        -> PostgresLiveTableError?
    {
        if transaction != nil, transaction != notification.transaction { complete(into: &completed) }
        guard let operation = _Notification.Operation(rawValue: notification.operation) else {
            if notification.endsTransaction { complete(into: &completed) }
            return .unknownOperation(notification.operation)
        }
        let error = append(notification, operation: operation, payload: payload)
        if notification.endsTransaction || operation == .commit || operation == .truncate {
            complete(into: &completed)
        }
        return error
    }

    private mutating func append(
        _ notification: _Notification, operation: _Notification.Operation, payload: String
    ) -> PostgresLiveTableError? {
        let item: Item
        switch (operation, notification.id, notification.row) {
        case (.commit, _, _): return nil
        case (.truncate, _, _): item = .invalidated
        case (_, nil, _): return .malformedNotification(payload: String(payload.prefix(200)), underlying: nil)
        case (.delete, let id?, _): item = .deleted(id: id)
        case (_, let id?, let row?): item = .row(row, isInsert: operation == .insert, id: id)
        case (_, let id?, nil): item = .fetch(id: id, isInsert: operation == .insert)
        }
        transaction = notification.transaction
        items.append(item)
        return nil
    }

    /// Appends the items gathered, if any, to `completed`, leaving the batch empty.
    private mutating func complete(into completed: inout [[Item]]) {
        if !items.isEmpty { completed.append(items) }
        items = []
        transaction = nil
    }

    /// The rows to fetch, each once, as the JSON array that `json_populate_recordset` reads
    /// (`[{"id":42},…]`), or `nil` when there are none.
    static func rowsToFetch(_ items: [Item], idColumn: String) -> String? {
        // Almost every transaction has none: it costs no encoder then (a `JSONEncoder` made and run for each
        // delivery cost a change feed's update two thirds of what decoding its row costs).
        guard items.contains(where: \.needsFetch) else { return nil }
        var seen = Set<String>()
        var rows: [String] = []
        // The column's name as a JSON string; an id is JSON already.
        let key = String(decoding: (try? JSONEncoder().encode(idColumn)) ?? Data(), as: UTF8.self)
        for case .fetch(let id, _) in items where seen.insert(id).inserted {
            rows.append("{\(key):\(id)}")
        }
        return rows.isEmpty ? nil : "[\(rows.joined(separator: ","))]"
    }
}
