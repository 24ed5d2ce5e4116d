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
///
/// The envelope is decoded with a plain `JSONDecoder`, so that the table's decoder and its key strategy
/// only ever see the row (through ``_RowBox``) and the id (as a JSON fragment of its own).
struct _Notification: Decodable {
    /// What the trigger saw.
    enum Operation: String {
        case insert, update, delete, commit, truncate
    }

    /// The transaction's id (`txid_current()`), as text.
    let transaction: String
    /// The operation, as sent.
    let operation: String
    /// The row's id as JSON (`nil` in `commit` and `truncate`).
    let id: _JSONValue?
    /// Whether the notification carries its row.
    let hasRow: Bool

    private enum CodingKeys: String, CodingKey {
        case tx, op, id, row
    }

    init(transaction: String, operation: String, id: _JSONValue?, hasRow: Bool) {
        self.transaction = transaction
        self.operation = operation
        self.id = id
        self.hasRow = hasRow
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        transaction = try container.decode(String.self, forKey: .tx)
        operation = try container.decode(String.self, forKey: .op)
        id = try container.decodeIfPresent(_JSONValue.self, forKey: .id)
        hasRow = container.contains(.row)
    }
}

/// A notification's row, decoded with the table's decoder.
struct _RowBox<Entity: Decodable>: Decodable {
    let row: Entity
}

/// A notification and its row in one pass, with the table's decoder when its key strategy leaves the
/// payload's keys (`tx`, `op`, `id`, `row`) as they are.
struct _Payload<Entity: Decodable>: Decodable {
    let notification: _Notification
    let row: Result<Entity, any Error>?

    private enum CodingKeys: String, CodingKey {
        case tx, op, id, row
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let hasRow = container.contains(.row)
        notification = _Notification(
            transaction: try container.decode(String.self, forKey: .tx),
            operation: try container.decode(String.self, forKey: .op),
            id: try container.decodeIfPresent(_JSONValue.self, forKey: .id), hasRow: hasRow)
        row = hasRow ? Result { try container.decode(Entity.self, forKey: .row) } : nil
    }
}

extension _Notification {
    /// The transaction of a `commit` marker in the exact form the trigger's `json_build_object` writes,
    /// `{"v" : 1, "tx" : "7514", "n" : 3, "op" : "commit"}`, read without a JSON decoder; `nil` for
    /// anything else, which the decoder then reads.
    static func commitMarkerTransaction(_ payload: String) -> String? {
        let prefix = #"{"v" : 1, "tx" : ""#
        guard payload.hasPrefix(prefix), payload.hasSuffix(#", "op" : "commit"}"#) else { return nil }
        let rest = payload.utf8.dropFirst(prefix.utf8.count)
        guard let end = rest.firstIndex(of: UInt8(ascii: "\"")) else { return nil }
        let transaction = rest[..<end]
        guard !transaction.isEmpty, transaction.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            payload.utf8[end...].starts(with: #"", "n" : "#.utf8)
        else { return nil }
        return String(decoding: transaction, as: UTF8.self)
    }
}
