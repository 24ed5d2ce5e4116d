import Foundation
import LiveResults

/// A row of any table, as embedding reads it: its columns' values (to join on) and its JSON members (to answer).
struct _EmbeddedRow: Sendable {
    let values: [String: QueryValue]
    let members: [(key: String, value: Data)]

    /// The row of `entity`, encoded by `encoder`.
    ///
    /// - Complexity: O(*c* + *k*) for *c* columns and *k* bytes.
    init<Entity: QueryableEntity & Encodable>(_ entity: Entity, encoder: JSONEncoder) throws {
        values = Dictionary(Entity.queryColumns.map { ($0.name, $0.value(of: entity)) }) { first, _ in first }
        members = _JSONMembers.of(try encoder.encode(entity))
    }
}
