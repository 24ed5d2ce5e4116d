import Foundation

/// The one ordering rule: section name, then the sort comparator, then insertion order.
///
/// Every position in the storage is decided by this type, so that the storage, the diff and the tests'
/// reference model cannot disagree.
@usableFromInline struct _EntityOrdering<Entity: FetchableEntity>: Sendable {
    /// The section an entity belongs to; `""` when the controller has no section key path.
    @usableFromInline let sectionName: @Sendable (Entity) -> String
    /// Whether there is a section key path: without one, every entity is in the section `""`.
    @usableFromInline let isSectioned: Bool
    /// The offset of the section name in the entity, when the key path is to a stored property of a
    /// struct: bulk builds read it there (see ``_SectionNameTable``).
    @usableFromInline let sectionNameOffset: Int?
    @usableFromInline let sectionOrder: SectionOrder
    /// The user's sort, without the insertion-order tie break.
    @usableFromInline var rule: _SortRule<Entity>

    @inlinable var compare: @Sendable (Entity, Entity) -> ComparisonResult { rule.compare }

    @inlinable init(
        sectionNameKeyPath: (KeyPath<Entity, String> & Sendable)?,
        sectionOrder: SectionOrder,
        rule: _SortRule<Entity>
    ) {
        if let sectionNameKeyPath {
            self.sectionName = _FieldAccess.reader(sectionNameKeyPath)
            self.sectionNameOffset = MemoryLayout<Entity>.offset(of: sectionNameKeyPath)
        } else {
            self.sectionName = { _ in "" }
            self.sectionNameOffset = nil
        }
        self.isSectioned = sectionNameKeyPath != nil
        self.sectionOrder = sectionOrder
        self.rule = rule
    }

    /// A copy with another sort comparator, for `resort(using:)`.
    @inlinable func sorted(by rule: _SortRule<Entity>) -> _EntityOrdering {
        var copy = self
        copy.rule = rule
        return copy
    }

    /// Whether `lhs` comes before `rhs` inside one section.
    @inlinable func precedes(_ lhs: _StoredEntity<Entity>, _ rhs: _StoredEntity<Entity>) -> Bool {
        switch compare(lhs.entity, rhs.entity) {
        case .orderedAscending: true
        case .orderedDescending: false
        case .orderedSame: lhs.sequence < rhs.sequence
        }
    }
}

/// An entity with its insertion sequence, the last key of the ordering rule.
@usableFromInline struct _StoredEntity<Entity: FetchableEntity>: Sendable, Equatable {
    @usableFromInline var entity: Entity
    /// Position in the fetch result for fetched entities, arrival order for later inserts.
    @usableFromInline var sequence: UInt64

    @usableFromInline
    init(entity: Entity, sequence: UInt64) {
        self.entity = entity
        self.sequence = sequence
    }
}
