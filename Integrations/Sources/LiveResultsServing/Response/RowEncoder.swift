import Foundation
import LiveResults

/// Encodes entities as the JSON objects PostgREST answers: the keys `select=` asks for, in PostgREST's order,
/// each value as the entity's `Codable` form writes it.
///
/// ```swift
/// let rows = RowEncoder<Todo>(select: try SelectList(parsing: "title,rank:priority"))
/// try rows.json([todo])   // [{"title":"Milk","rank":2}]
/// ```
///
/// `*` gives every key: the entity's query columns in the order it declares them (a table's columns, in the
/// table's order), then any other key of its JSON in the order it encodes them. A column gives its key, or
/// its alias. An entity's JSON keys are its columns' names.
public struct RowEncoder<Entity: QueryableEntity & Encodable>: Sendable {
    /// What each row holds.
    ///
    /// - Complexity: O(1).
    public let select: SelectList
    private let encoder: JSONEncoder
    private let columnOrder: [String]

    /// An encoder of `select`'s keys, through `encoder` (a plain `JSONEncoder` by default; it must not
    /// pretty-print).
    ///
    /// - Complexity: O(*c*) for *c* columns.
    public init(select: SelectList = .all, encoder: JSONEncoder = JSONEncoder()) {
        self.select = select
        self.encoder = encoder
        columnOrder = Entity.queryColumns.map(\.name)
    }

    /// The rows as a JSON array.
    ///
    /// - Complexity: O(*n* · *k*) for *n* rows of *k* bytes.
    public func json(_ rows: some Sequence<Entity>) throws -> Data {
        var json = Data("[".utf8)
        var first = true
        for row in rows {
            if !first { json.append(UInt8(ascii: ",")) }
            first = false
            json.append(try object(row))
        }
        json.append(UInt8(ascii: "]"))
        return json
    }

    /// One row as a JSON object.
    ///
    /// - Complexity: O(*k*) for *k* bytes.
    public func object(_ row: Entity) throws -> Data {
        _RowObject.write(members: _JSONMembers.of(try encoder.encode(row)), select: select, columnOrder: columnOrder)
    }
}
