import Foundation

/// Computes the change set of a batch of events from the entities the batch touched alone.
///
/// Before the batch runs, it records where each entity named by an event was. The storage then applies
/// the events and reports every entity it *repositioned* (removed, inserted, or moved because its
/// section or sort keys changed). Entities that were not repositioned keep their relative order, so in
/// each section they form runs that are contiguous before and after the batch; there are O(*k*) such
/// runs for *k* repositioned entities. The minimal moves are chosen among those runs and the
/// repositioned entities, so a batch of *k* events costs O(*k* log *n*) whatever the size of the result.
@usableFromInline struct _BatchDiff<Entity: FetchableEntity> {
    @usableFromInline struct Before {
        @usableFromInline var entity: Entity
        @usableFromInline var indexPath: IndexPath
        @usableFromInline var sectionName: String

        @usableFromInline
        init(entity: Entity, indexPath: IndexPath, sectionName: String) {
            self.entity = entity
            self.indexPath = indexPath
            self.sectionName = sectionName
        }
    }

    /// The repositioned entities of one section, before and after the batch.
    @usableFromInline struct TouchedSection {
        @usableFromInline var oldIndex: Int?
        @usableFromInline var old: [(item: Int, id: Entity.ID)] = []
        @usableFromInline var new: [(item: Int, id: Entity.ID)] = []
        /// Repositioned entities that were and are in this section: the candidates for moves.
        @usableFromInline var stayed: [(id: Entity.ID, oldItem: Int, newItem: Int)] = []

        @usableFromInline
        init(
            oldIndex: Int? = nil, old: [(item: Int, id: Entity.ID)] = [], new: [(item: Int, id: Entity.ID)] = [],
            stayed: [(id: Entity.ID, oldItem: Int, newItem: Int)] = []
        ) {
            self.oldIndex = oldIndex
            self.old = old
            self.new = new
            self.stayed = stayed
        }
    }

    @usableFromInline var ids: [Entity.ID] = []
    @usableFromInline var before: [Entity.ID: Before] = [:]
    @usableFromInline var repositioned: Set<Entity.ID> = []
    /// The entities' versions after the change, where the diff already knows them (a version diff).
    @usableFromInline var later: [Entity.ID: _StoredEntity<Entity>]?
    /// Entities known to be updated in place, whose place before is not needed (a version diff).
    @usableFromInline var updatedInPlace: Set<Entity.ID> = []

    /// Records, before the batch runs, where every entity an event names is.
    ///
    /// - Complexity: O(*k* log *n*) for *k* events.
    @inlinable init(events: [EntityEvent<Entity>], storage: _SectionedStorage<Entity>) {
        var seen = Set<Entity.ID>()
        for event in events {
            guard let id = event.entityID, seen.insert(id).inserted else { continue }
            ids.append(id)
            // One lookup of the record: `indexPath(forID:)` would look it up again.
            if let stored = storage.stored(forID: id) {
                let name = storage.ordering.sectionName(stored.entity)
                let place = storage.place(of: stored, inSection: name)
                before[id] = Before(entity: stored.entity, indexPath: place.indexPath, sectionName: name)
            }
        }
    }

    /// Notes that the storage removed or inserted the entity with this id.
    @inlinable mutating func markRepositioned(_ id: Entity.ID) {
        repositioned.insert(id)
    }

    /// The change set from the recorded state to `storage`.
    ///
    /// - Complexity: O(*k* log *n*) for *k* events.
    @inlinable func changeSet(after storage: _SectionedStorage<Entity>) -> ChangeSet<Entity> {
        var builder = _ChangeSetBuilder<Entity>()
        var sections: [String: TouchedSection] = [:]
        for id in ids {
            let old = before[id]
            let new = later.map { $0[id] } ?? storage.stored(forID: id)
            let newIndexPath = new.map { new in
                let place = storage.place(of: new, inSection: storage.ordering.sectionName(new.entity))
                return IndexPath(_section: place.section, item: place.item)
            }
            if let newIndexPath, let new, old.map({ $0.entity != new.entity }) ?? updatedInPlace.contains(id) {
                builder.update(id, at: newIndexPath)
            }
            guard repositioned.contains(id) else { continue }
            // One access of each section's entry per entity (each access hashes the section's name).
            if let old { Self.record(old: old, of: id, in: &sections[old.sectionName, default: TouchedSection()]) }
            if let newIndexPath {
                let name = storage.sections[newIndexPath[0]].name
                let stayed = old.map { $0.sectionName == name } ?? false
                Self.record(
                    new: newIndexPath[1], of: id, stayedFrom: stayed ? old?.indexPath[1] : nil,
                    in: &sections[name, default: TouchedSection()])
                // An entity that stayed in its section moves only if the section's minimal moves say so.
                if let old, !stayed {
                    builder.move(id, from: old.indexPath, to: newIndexPath)
                } else if old == nil {
                    builder.insert(id, at: newIndexPath)
                }
            } else if let old {
                builder.delete(id, at: old.indexPath)
            }
        }
        for (name, touched) in sections {
            Self.resolve(touched, named: name, in: storage, into: &builder)
        }
        return builder.build()
    }

    /// Notes that the repositioned entity `id` was in `section` at `old`.
    @inlinable static func record(old: Before, of id: Entity.ID, in section: inout TouchedSection) {
        section.oldIndex = old.indexPath[0]
        section.old.append((old.indexPath[1], id))
    }

    /// Notes that the repositioned entity `id` is at `item` in `section`, and was in it at `oldItem`, if given.
    @inlinable static func record(
        new item: Int, of id: Entity.ID, stayedFrom oldItem: Int?, in section: inout TouchedSection
    ) {
        section.new.append((item, id))
        if let oldItem { section.stayed.append((id, oldItem, item)) }
    }

    /// Reports the section's own insertion or deletion, and the moves inside it.
    @inlinable static func resolve(
        _ touched: TouchedSection,
        named name: String,
        in storage: _SectionedStorage<Entity>,
        into builder: inout _ChangeSetBuilder<Entity>
    ) {
        let section = storage.sectionIndex(named: name)
        guard section.found else {
            if let oldIndex = touched.oldIndex { builder.deleteSection(oldIndex, name: name) }
            return
        }
        let untouchedCount = storage.sections[section.index].items.count - touched.new.count
        if touched.oldIndex == nil && untouchedCount == 0 {
            builder.insertSection(section.index, name: name)
        } else if let oldIndex = touched.oldIndex, !touched.stayed.isEmpty {
            let moves = _SectionMoves(touched, untouchedCount: untouchedCount)
            moves.report(oldSection: oldIndex, newSection: section.index, storage: storage, into: &builder)
        }
    }

    /// The minimal moves inside one section that exists before and after the batch.
    @usableFromInline struct _SectionMoves {
        /// An entity's place relative to the untouched runs: after `cut` untouched entities; runs sort
        /// after the touched entities at their start.
        @usableFromInline struct Key: Comparable {
            @usableFromInline var cut: Int
            @usableFromInline var isRun: Bool
            @usableFromInline var item: Int

            @inlinable static func < (lhs: Key, rhs: Key) -> Bool {
                (lhs.cut, lhs.isRun ? 1 : 0, lhs.item) < (rhs.cut, rhs.isRun ? 1 : 0, rhs.item)
            }

            @usableFromInline
            init(cut: Int, isRun: Bool, item: Int) {
                self.cut = cut
                self.isRun = isRun
                self.item = item
            }
        }

        @usableFromInline enum Candidate {
            case entity(id: Entity.ID, oldItem: Int, newItem: Int)
            case untouchedRun(Range<Int>)
        }

        @usableFromInline var candidates:
            [(oldKey: Key, newKey: Key, weight: _MinimalMoves.Weight, candidate: Candidate)] = []
        /// For each touched entity in old (new) order, how many untouched entities precede it.
        @usableFromInline var oldCuts: [Int]
        @usableFromInline var newCuts: [Int]

        @inlinable init(_ touched: TouchedSection, untouchedCount: Int) {
            let old = touched.old.sorted { $0.item < $1.item }
            let new = touched.new.sorted { $0.item < $1.item }
            oldCuts = old.enumerated().map { rank, entry in entry.item - rank }
            newCuts = new.enumerated().map { rank, entry in entry.item - rank }
            let oldCut = Dictionary(uniqueKeysWithValues: zip(old.map(\.id), oldCuts))
            let newCut = Dictionary(uniqueKeysWithValues: zip(new.map(\.id), newCuts))
            for entry in touched.stayed {
                candidates.append(
                    (
                        Key(cut: oldCut[entry.id]!, isRun: false, item: entry.oldItem),
                        Key(cut: newCut[entry.id]!, isRun: false, item: entry.newItem),
                        _MinimalMoves.Weight(kept: 1, stationary: 0),
                        .entity(id: entry.id, oldItem: entry.oldItem, newItem: entry.newItem)
                    ))
            }
            let boundaries = Self.merged(oldCuts, newCuts, within: untouchedCount)
            for (lower, upper) in zip(boundaries, boundaries.dropFirst()) where lower < upper {
                let key = Key(cut: lower, isRun: true, item: 0)
                let length = upper - lower
                candidates.append(
                    (key, key, _MinimalMoves.Weight(kept: length, stationary: length), .untouchedRun(lower..<upper)))
            }
            candidates.sort { $0.oldKey < $1.oldKey }
        }

        @inlinable func report(
            oldSection: Int,
            newSection: Int,
            storage: _SectionedStorage<Entity>,
            into builder: inout _ChangeSetBuilder<Entity>
        ) {
            let kept = _MinimalMoves.kept(newKeys: candidates.map(\.newKey), weights: candidates.map(\.weight))
            for (entry, isKept) in zip(candidates, kept) where !isKept {
                switch entry.candidate {
                case .entity(let id, let oldItem, let newItem):
                    builder.move(
                        id, from: IndexPath(_section: oldSection, item: oldItem),
                        to: IndexPath(_section: newSection, item: newItem))
                case .untouchedRun(let run):
                    for untouched in run {
                        let oldItem = untouched + Self.count(of: oldCuts, notAbove: untouched)
                        let newItem = untouched + Self.count(of: newCuts, notAbove: untouched)
                        let id = storage.sections[newSection].items[newItem].id
                        builder.move(
                            id, from: IndexPath(_section: oldSection, item: oldItem),
                            to: IndexPath(_section: newSection, item: newItem))
                    }
                }
            }
        }

        /// The distinct values of the ascending `first` and `second`, with 0 and `end`, ascending: a merge, not
        /// a set and a sort.
        @inlinable static func merged(_ first: [Int], _ second: [Int], within end: Int) -> [Int] {
            var merged = [0]
            merged.reserveCapacity(first.count + second.count + 2)
            var (i, j) = (0, 0)
            while i < first.count || j < second.count {
                let next: Int
                if j == second.count || (i < first.count && first[i] <= second[j]) {
                    next = first[i]
                    i += 1
                } else {
                    next = second[j]
                    j += 1
                }
                if next != merged[merged.count - 1] { merged.append(next) }
            }
            if end != merged[merged.count - 1] { merged.append(end) }
            return merged
        }

        /// How many of the ascending `cuts` are at most `value`.
        @inlinable static func count(of cuts: [Int], notAbove value: Int) -> Int {
            var low = 0
            var high = cuts.count
            while low < high {
                let middle = (low + high) / 2
                if cuts[middle] <= value { low = middle + 1 } else { high = middle }
            }
            return low
        }
    }
}
