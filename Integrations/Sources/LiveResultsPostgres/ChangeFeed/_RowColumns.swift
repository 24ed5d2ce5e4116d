import Foundation

/// A row as `pgoutput` sent it: the relation's columns and their text values, decoded by the table when its
/// transaction is delivered.
struct _RowColumns: Sendable {
    let columns: [_PgOutputMessage.Relation.Column]
    let values: [_PgOutputMessage.Column]

    /// The integer types, whose text `_RowJSON` writes as a JSON number (`oid` is a string there).
    static let integerTypes: Set<UInt32> = [20, 21, 23]
    /// The floating-point and `numeric` types, whose text `_RowJSON` writes as a JSON number when it is one.
    static let floatingPointTypes: Set<UInt32> = [700, 701, 1700]

    /// Whether `_RowJSON` writes a column of this type as a JSON string of its text, unchanged.
    static func isText(_ typeOID: UInt32) -> Bool {
        switch typeOID {
        case 16, 20, 21, 23, 700, 701, 1700, 114, 3802, 1114, 1184: false
        default: _RowJSON.arrayElementTypes[typeOID] == nil
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
        if case .useDefaultKeys = decoder.keyDecodingStrategy, columns.count == values.count,
            let entity = try? Entity(from: _ColumnDecoder(row: self, column: nil, userInfo: decoder.userInfo))
        {
            return entity
        }
        return try decoder.decode(Entity.self, from: try json)
    }
}
