import LiveResults

/// One notification of a table's trigger, decoded (see the *PostgreSQL* article for the payload format).
///
/// ```json
/// {"v":1,"tx":"7514","n":3,"op":"update","id":42,"row":{"id":42,"title":"Buy milk"}}
/// {"v":1,"tx":"7514","n":4,"op":"update","id":43}          (the row was too large: fetch it)
/// {"v":1,"tx":"7514","n":2,"op":"delete","id":41}
/// {"v":1,"tx":"7514","n":4,"op":"commit"}                   (the transaction's last notification)
/// {"v":1,"tx":"7515","n":1,"op":"truncate"}
/// ```
struct _Notification<Entity: FetchableEntity & Decodable>: Decodable where Entity.ID: Decodable {
    /// What the trigger saw.
    enum Operation: String {
        case insert, update, delete, commit, truncate
    }

    /// The transaction's id (`txid_current()`), as text.
    let transaction: String
    /// The operation, as sent.
    let operation: String
    /// The row's id as JSON, to fetch a row that came without its content.
    let rawID: _JSONValue?
    /// The row's id, or why it did not decode (`nil` when there is none: `commit`, `truncate`).
    let id: Result<Entity.ID, any Error>?
    /// The row, or why it did not decode (`nil` when the notification has none).
    let row: Result<Entity, any Error>?

    private enum CodingKeys: String, CodingKey {
        case v, tx, n, op, id, row
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transaction = try container.decode(String.self, forKey: .tx)
        operation = try container.decode(String.self, forKey: .op)
        if container.contains(.id) {
            rawID = try container.decode(_JSONValue.self, forKey: .id)
            id = Result { try container.decode(Entity.ID.self, forKey: .id) }
        } else {
            rawID = nil
            id = nil
        }
        row = container.contains(.row) ? Result { try container.decode(Entity.self, forKey: .row) } : nil
    }
}
