import Foundation
import LiveResultsWireSupport

/// One notification of a table's trigger, read (see the *PostgreSQL* article for the payload format).
///
/// ```json
/// {"v":2,"tx":"7514","n":3,"end":false,"op":"update","id":42,"row":{"id":42,"title":"Buy milk"}}
/// {"v":2,"tx":"7514","n":4,"end":false,"op":"update","id":43}      (the row was too large: fetch it)
/// {"v":2,"tx":"7514","n":5,"end":true,"op":"delete","id":41}       (the transaction's last notification)
/// {"v":2,"tx":"7515","n":1,"end":true,"op":"truncate"}
/// ```
///
/// The trigger writes this exact form, which ``read(_:)`` reads without a JSON decoder. Anything else (a
/// notification sent by hand, format 1 with its `commit` markers) goes through `JSONDecoder`. Either way the
/// row is kept as JSON, for the table's decoder to decode when the batch is delivered, and the id as its JSON
/// text. Nothing here depends on the entity's type: generic code pays for a lookup of its type's metadata
/// at almost every step, about a tenth of a listening process's CPU when this was generic.
struct _Notification: Sendable {
    /// What the trigger saw.
    enum Operation: String {
        case insert, update, delete, commit, truncate
    }

    /// The transaction's id (`txid_current()`), as text.
    var transaction: String
    /// The operation, as sent.
    var operation: String
    /// Whether this is its transaction's last notification (`end`); format 1 sends a `commit` marker instead.
    var endsTransaction: Bool
    /// The row's id as JSON text (`nil` in `commit` and `truncate`).
    var id: String?
    /// The row, when the notification carries it.
    var row: Row?

    /// A notification's row: JSON, or the columns the change feed read.
    enum Row: Sendable {
        /// The row's own JSON object.
        case json(Data)
        /// The whole payload, whose `row` field is the row (a payload read by `JSONDecoder`).
        case inPayload(Data)
        /// The row's columns, as the change feed read them.
        case columns(_RowColumns)

        /// The row, decoded with the table's decoder.
        func decode<Entity: Decodable>(as _: Entity.Type, with decoder: JSONDecoder) throws -> Entity {
            switch self {
            case .json(let json): try decoder.decode(Entity.self, from: json)
            case .inPayload(let payload): try decoder.decode(_RowBox<Entity>.self, from: payload).row
            case .columns(let columns): try columns.decode(as: Entity.self, with: decoder)
            }
        }
    }

    /// Reads a payload: the trigger's own form directly, anything else with `JSONDecoder`.
    static func read(_ payload: String) throws -> _Notification {
        var payload = payload
        if let notification = payload.withUTF8(_TriggerPayloadReader.read) { return notification }
        return try decode(payload)
    }

    /// Reads a payload with `JSONDecoder`: any JSON object with the fields of either format.
    static func decode(_ payload: String) throws -> _Notification {
        let data = Data(payload.utf8)
        let envelope = try JSONDecoder().decode(_Envelope.self, from: data)
        return _Notification(
            transaction: envelope.tx, operation: envelope.op, endsTransaction: envelope.end ?? false,
            id: try envelope.id.map { String(decoding: try JSONEncoder().encode($0), as: UTF8.self) },
            row: envelope.hasRow ? .inPayload(data) : nil)
    }
}

/// A payload's fields other than the row, read by `JSONDecoder`: any JSON object with the fields of either format.
private struct _Envelope: Decodable {
    let tx: String
    let op: String
    let end: Bool?
    let id: JSONValue?
    let hasRow: Bool

    private enum CodingKeys: String, CodingKey {
        case tx, op, end, id, row
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tx = try container.decode(String.self, forKey: .tx)
        op = try container.decode(String.self, forKey: .op)
        end = try container.decodeIfPresent(Bool.self, forKey: .end)
        // A `null` id is an id, as in the trigger's form (where it fails to decode into the entity's id).
        id = container.contains(.id) ? try container.decode(JSONValue.self, forKey: .id) : nil
        hasRow = container.contains(.row)
    }
}

/// A payload's row, decoded with the table's decoder.
private struct _RowBox<Entity: Decodable>: Decodable {
    let row: Entity
}

/// Reads the payload form the trigger writes, byte by byte; `nil` when the payload is not in that form.
///
/// `JSONDecoder` took about a fifth of a listening process's CPU, most of it in its generic machinery for
/// a dozen fields; the form is fixed (the trigger builds it by concatenation), so a scan reads it.
enum _TriggerPayloadReader {
    static func read(_ bytes: UnsafeBufferPointer<UInt8>) -> _Notification? {
        var cursor = _ByteCursor(bytes)
        guard cursor.skip(#"{"v":2,"tx":""#), let transaction = cursor.digits(), cursor.skip(#"","n":"#),
            cursor.digits() != nil, cursor.skip(#","end":"#)
        else { return nil }
        let endsTransaction: Bool
        if cursor.skip("true") {
            endsTransaction = true
        } else if cursor.skip("false") {
            endsTransaction = false
        } else {
            return nil
        }
        guard cursor.skip(#","op":""#), let operation = cursor.letters(), cursor.skip(#"""#) else { return nil }
        var notification = _Notification(
            transaction: cursor.string(transaction), operation: cursor.string(operation),
            endsTransaction: endsTransaction)
        if cursor.skip(#"}"#) { return cursor.isAtEnd ? notification : nil }
        guard cursor.skip(#","id":"#), let id = cursor.scalar() else { return nil }
        notification.id = cursor.string(id)
        if cursor.skip(#"}"#) { return cursor.isAtEnd ? notification : nil }
        guard cursor.skip(#","row":"#), let row = cursor.objectBeforeLastBrace() else { return nil }
        notification.row = .json(cursor.data(row))
        return notification
    }
}

extension _Notification {
    init(transaction: String, operation: String, endsTransaction: Bool) {
        self.init(transaction: transaction, operation: operation, endsTransaction: endsTransaction, id: nil, row: nil)
    }
}

/// A position in a payload's bytes, with the few reads the trigger's form needs.
struct _ByteCursor {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var position = 0

    init(_ bytes: UnsafeBufferPointer<UInt8>) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    /// Moves past `literal` if the bytes here are `literal`.
    mutating func skip(_ literal: StaticString) -> Bool {
        let count = literal.utf8CodeUnitCount
        guard bytes.count - position >= count,
            memcmp(bytes.baseAddress! + position, literal.utf8Start, count) == 0
        else { return false }
        position += count
        return true
    }

    /// One or more ASCII digits.
    mutating func digits() -> Range<Int>? { run { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } }

    /// One or more lowercase ASCII letters.
    mutating func letters() -> Range<Int>? { run { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) } }

    /// A JSON string (with its escapes) or a number, `true`, `false` or `null`; not an object or array.
    mutating func scalar() -> Range<Int>? {
        let start = position
        guard position < bytes.count else { return nil }
        if bytes[position] == UInt8(ascii: "\"") {
            position += 1
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\\"): position += 2
                case UInt8(ascii: "\""):
                    position += 1
                    return start..<position
                default: position += 1
                }
            }
            position = start
            return nil
        }
        let scalarByte: (UInt8) -> Bool = { byte in
            byte != UInt8(ascii: ",") && byte != UInt8(ascii: "}") && byte != UInt8(ascii: "{")
                && byte != UInt8(ascii: "[") && byte != UInt8(ascii: "\"")
        }
        return run(while: scalarByte)
    }

    /// The bytes from here to the payload's last one, which must be `}`, when they start and end as an object.
    mutating func objectBeforeLastBrace() -> Range<Int>? {
        guard bytes.count - position >= 3, bytes[position] == UInt8(ascii: "{"),
            bytes[bytes.count - 1] == UInt8(ascii: "}"), bytes[bytes.count - 2] == UInt8(ascii: "}")
        else { return nil }
        defer { position = bytes.count }
        return position..<(bytes.count - 1)
    }

    func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    func data(_ range: Range<Int>) -> Data { Data(UnsafeBufferPointer(rebasing: bytes[range])) }

    private mutating func run(while accepts: (UInt8) -> Bool) -> Range<Int>? {
        let start = position
        while position < bytes.count, accepts(bytes[position]) { position += 1 }
        return position > start ? start..<position : nil
    }
}
