import Foundation
import LiveResults

/// A row of any table, as embedding reads it: its id and columns' values (to join on, and to know what was
/// read) and its JSON members (to answer).
struct _EmbeddedRow: Sendable {
    let id: QueryValue
    let values: [String: QueryValue]
    let members: [(key: String, value: Data)]

    /// The row of `entity`, encoded by `encoder`.
    ///
    /// - Complexity: O(*c* + *k*) for *c* columns and *k* bytes.
    init<Entity: QueryableEntity & Encodable>(_ entity: Entity, encoder: JSONEncoder) throws {
        values = Dictionary(Entity.queryColumns.map { ($0.name, $0.value(of: entity)) }) { first, _ in first }
        id = values[Entity.idColumn] ?? .null
        members = _JSONMembers.of(try encoder.encode(entity))
    }
}
