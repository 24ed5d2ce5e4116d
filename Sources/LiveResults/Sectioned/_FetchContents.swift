/// The entities of a fetch result as stored entities, each with its position as insertion sequence,
/// without copying them into a new array.
///
/// A `LazyMapCollection` would do the same through a closure that the optimizer cannot inline; this
/// type's subscript inlines, so reading a field of an entity copies nothing else.
@usableFromInline struct _FetchContents<Entity: FetchableEntity>: RandomAccessCollection {
    @usableFromInline let entities: [Entity]

    @inlinable init(_ entities: [Entity]) {
        self.entities = entities
    }

    @inlinable var startIndex: Int { 0 }
    @inlinable var endIndex: Int { entities.count }

    @inlinable subscript(position: Int) -> _StoredEntity<Entity> {
        _StoredEntity(entity: entities[position], sequence: UInt64(position))
    }
}
