import Foundation

/// The live results as a plain value: the storage, the ordering rule, the inclusion rule and the
/// insertion counter. Every mutation returns the change set it caused.
///
/// The controller runs it under its lock; tests drive it directly.
@usableFromInline struct _ResultsCore<Entity: FetchableEntity>: Sendable {
    @usableFromInline var storage: _SectionedStorage<Entity>
    @usableFromInline let isIncluded: @Sendable (Entity) -> Bool
    /// The insertion sequence of the next live insert; fetched entities use their fetch position.
    @usableFromInline var nextSequence: UInt64 = 0
    /// What the changes since the last delivered version replaced, while update streams may resume from
    /// earlier versions (see ``_UpdateFeed``); `nil` otherwise, and then nothing is recorded.
    @usableFromInline var undo: _VersionUndo<Entity>?
    /// How many times the storage was rebuilt (a fetch, a resort, a reset), whether or not the results changed:
    /// a rebuild numbers the entities anew or changes the order, which a window's held versions must know.
    @usableFromInline var rebuilds: UInt64 = 0

    @inlinable init(ordering: _EntityOrdering<Entity>, isIncluded: @escaping @Sendable (Entity) -> Bool) {
        self.storage = _SectionedStorage(ordering: ordering)
        self.isIncluded = isIncluded
    }

    /// Applies a batch of events by the rules of ``EntityEvent``.
    ///
    /// - Returns: The change set, and whether the batch held ``EntityEvent/invalidated``.
    /// - Complexity: O(*k* log *n*) comparisons for *k* events, plus one array insertion or removal per
    ///   repositioned entity.
    @inlinable mutating func apply(_ events: [EntityEvent<Entity>]) -> (changes: ChangeSet<Entity>, invalidated: Bool) {
        if events.count == 1 { return apply(events[0]) }
        var diff = _BatchDiff(events: events, storage: storage)
        var invalidated = false
        for event in events {
            if case .invalidated = event { invalidated = true }
            if let id = event.entityID, run(event).isRepositioning { diff.markRepositioned(id) }
        }
        return (diff.changeSet(after: storage), invalidated)
    }

    /// Applies one event: the batch of one that live updates usually are, without the bookkeeping a
    /// batch needs to find its moves (one entity moves at most once).
    ///
    /// - Returns: The change set, and whether the event is ``EntityEvent/invalidated``.
    /// - Complexity: O(log *n*).
    @inlinable mutating func apply(_ event: EntityEvent<Entity>) -> (changes: ChangeSet<Entity>, invalidated: Bool) {
        guard let id = event.entityID else { return (ChangeSet(), true) }
        return (_SingleEventDiff.changeSet(of: run(event), id: id, in: storage), false)
    }

    /// Runs one event on the storage.
    @inlinable mutating func run(_ event: EntityEvent<Entity>) -> _EventOutcome<Entity> {
        switch event {
        case .inserted(let entity), .updated(let entity): upsert(entity)
        case .deleted(let id): removed(storage.remove(id: id))
        case .invalidated: .unchanged
        }
    }

    /// The outcome of a removal, recorded for ``undo``.
    @inlinable mutating func removed(_ removal: _SectionedStorage<Entity>.Removal?) -> _EventOutcome<Entity> {
        guard let removal else { return .unchanged }
        undo?.record(removal.stored.entity.id, before: removal.stored)
        return .removed(removal)
    }

    @inlinable mutating func upsert(_ entity: Entity) -> _EventOutcome<Entity> {
        let included = isIncluded(entity)
        guard let current = storage.stored(forID: entity.id) else {
            guard included else { return .unchanged }
            defer { nextSequence += 1 }
            undo?.record(entity.id, before: nil)
            return .inserted(storage.insert(_StoredEntity(entity: entity, sequence: nextSequence)))
        }
        guard included else { return removed(storage.remove(id: entity.id)) }
        guard current.entity != entity else { return .unchanged }
        undo?.record(entity.id, before: current)
        let ordering = storage.ordering
        let (oldName, newName) = (ordering.sectionName(current.entity), ordering.sectionName(entity))
        let updated = _StoredEntity(entity: entity, sequence: current.sequence)
        if oldName == newName && ordering.compare(current.entity, entity) == .orderedSame {
            storage.replaceInPlace(updated)
            return .updatedInPlace(updated, sectionName: newName)
        }
        let (removal, insertion) = storage.move(current, inSection: oldName, to: updated, inSection: newName)
        return .moved(removal, insertion)
    }

    /// Replaces everything by a fetch result; insertion order restarts from the result's order.
    ///
    /// - Returns: The change set, and the ids that appeared more than once (only the first is kept).
    /// - Complexity: O(*n*) expected, plus comparisons of entities whose abbreviated sort keys tie
    ///   (see ``_SectionedStorage/built(ordering:contents:)``) and O(*m* log *m*) for *m* runs of
    ///   entities that kept their order (see ``_SnapshotDiff``).
    @inlinable mutating func replaceAll(with fetched: [Entity], thenReplaying events: [EntityEvent<Entity>] = []) -> (
        changes: ChangeSet<Entity>, duplicateIDs: [Entity.ID]
    ) {
        undo?.recordReplacement(of: storage)
        rebuilds &+= 1
        let later = _DuplicateIDs.laterOccurrences(in: fetched)
        let contents = _FetchContents(included(fetched, skipping: later))
        var next = self
        // The build's hash order spares the diff hashing the new ids, unless replayed events change the
        // new storage after the build.
        let built = _SectionedStorage.built(
            ordering: storage.ordering, contents: contents, keepingHashOrder: events.isEmpty && self.storage.count > 0)
        next.storage = built.storage
        next.nextSequence = UInt64(contents.count)
        let changes: ChangeSet<Entity>
        if events.isEmpty {
            changes = _SnapshotDiff.changeSet(
                from: self.storage, to: next.storage,
                newInHashOrder: _SnapshotDiff.positionsInHashOrder(built: built.hashOrder, placed: built.placed))
        } else {
            for event in events { _ = next.run(event) }
            changes = _SnapshotDiff.changeSet(from: self.storage, to: next.storage)
        }
        self = next
        return (changes, later.map { fetched[$0].id })
    }

    /// The entities of `fetched` that are included, leaving out those at the offsets `skipped`
    /// (ascending). Returns `fetched` itself, not a copy, when it keeps them all.
    @inlinable func included(_ fetched: [Entity], skipping skipped: [Int]) -> [Entity] {
        var kept: [Entity]? = nil
        var nextSkipped = 0
        for index in fetched.indices {
            let isSkipped = nextSkipped < skipped.count && skipped[nextSkipped] == index
            if isSkipped { nextSkipped += 1 }
            if !isSkipped && isIncluded(fetched[index]) {
                kept?.append(fetched[index])
            } else if kept == nil {
                kept = Array(fetched[..<index])
                kept!.reserveCapacity(fetched.count)
            }
        }
        return kept ?? fetched
    }

    /// Orders everything by another sort comparator, keeping each entity's insertion order.
    ///
    /// - Complexity: As ``_SectionedStorage/built(ordering:contents:)`` for the entities in the order
    ///   a walk of the records meets them (no lookups), then O(*n*) expected to pair old and new
    ///   positions and O(*m* log *m*) for the moves.
    @inlinable mutating func resort(by rule: _SortRule<Entity>) -> ChangeSet<Entity> {
        undo?.recordReplacement(of: storage)
        rebuilds &+= 1
        let records = Array(storage.records)
        let resorted = _SectionedStorage(ordering: storage.ordering.sorted(by: rule), contents: records)
        let changes = _SnapshotDiff.changeSet(from: storage, to: resorted)
        storage = resorted
        return changes
    }

    /// Removes everything.
    ///
    /// - Complexity: O(*n*).
    @inlinable mutating func removeAll() -> ChangeSet<Entity> {
        undo?.recordReplacement(of: storage)
        rebuilds &+= 1
        let empty = _SectionedStorage(ordering: storage.ordering)
        let changes = _SnapshotDiff.changeSet(from: storage, to: empty)
        storage = empty
        nextSequence = 0
        return changes
    }
}
