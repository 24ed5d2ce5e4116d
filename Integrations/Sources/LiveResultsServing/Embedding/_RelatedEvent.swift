import LiveResults

/// An event of an embeddable table, its entity type erased: what the index of reads needs to find the parents
/// it changes.
enum _RelatedEvent: Sendable {
    /// A row inserted or updated: its id and its columns' values.
    case changed(id: QueryValue, values: [String: QueryValue])
    /// A row deleted, by its id; `nil` when the entity's id is not a query value (the parents are then all
    /// re-embedded).
    case deleted(id: QueryValue?)
    /// The table's data was reset.
    case invalidated

    /// The erased form of `event`.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    init<Entity: QueryableEntity>(_ event: EntityEvent<Entity>) {
        switch event {
        case .inserted(let entity), .updated(let entity):
            let values = Dictionary(Entity.queryColumns.map { ($0.name, $0.value(of: entity)) }) { first, _ in first }
            self = .changed(id: values[Entity.idColumn] ?? .null, values: values)
        case .deleted(let id):
            self = .deleted(id: (id as? any QueryValueConvertible)?.queryValue)
        case .invalidated:
            self = .invalidated
        }
    }
}
