import LiveResults

/// The events of one transaction's notifications, gathered until the transaction's `commit` marker (or a
/// notification of another transaction) says that they are all there.
///
/// Notifications of one transaction arrive together, in the order they were sent, after it committed:
/// PostgreSQL queues a transaction's notifications in one piece at commit, in commit order. So the batch
/// of a transaction is complete at its marker; a notification of another transaction completes it too
/// (for notifications sent without a marker, by hand or by an older trigger).
struct _TransactionBatch<Entity: FetchableEntity & Decodable>: Sendable where Entity.ID: Decodable {
    /// An event, or a row to fetch because it was too large for its notification.
    enum Item: Sendable {
        case event(EntityEvent<Entity>)
        case fetch(id: Entity.ID, rawID: _JSONValue, isInsert: Bool)
    }

    /// The transaction the items belong to.
    private(set) var transaction: String?
    /// The items, in the order of their notifications.
    private(set) var items: [Item] = []

    /// Whether a notification of `transaction` completes the batch gathered so far (it belongs to another).
    func isCompleted(by transaction: String) -> Bool {
        self.transaction != nil && self.transaction != transaction
    }

    /// Adds an item of `transaction`.
    mutating func append(_ item: Item, of transaction: String) {
        self.transaction = transaction
        items.append(item)
    }

    /// Takes the items gathered, leaving the batch empty.
    mutating func take() -> [Item] {
        defer {
            items = []
            transaction = nil
        }
        return items
    }

    /// The rows to fetch, each once, as the JSON array that `json_populate_recordset` reads.
    static func rowsToFetch(_ items: [Item], idColumn: String) -> [_JSONValue] {
        var seen = Set<_JSONValue>()
        var rows: [_JSONValue] = []
        for case .fetch(_, let rawID, _) in items where seen.insert(rawID).inserted {
            rows.append(.object([idColumn: rawID]))
        }
        return rows
    }
}
