import Foundation

/// The change set of one window whose entities changed, from the controller's change set in positions
/// (``_GlobalChanges``), without listing the window: see ``_WindowDiff`` for why the untouched entities need
/// no listing.
///
/// Index paths follow the contract of ``ChangeSet``: deletes and the origins of moves in the old window's
/// coordinates, the rest in the new one's. The new window's sections are read from the storage; the old
/// one's are put together from the untouched entities it held (grouped by the storage's sections, where
/// they still are) and the removed ones (whose change set names their old sections).
@usableFromInline struct _WindowShift<Entity: FetchableEntity> {
    /// A survivor in the window's own section among which moves are minimal: an entity the change set moved
    /// or updated, or a run of untouched ones that no such entity splits in either order.
    @usableFromInline struct Candidate {
        /// What a candidate moves when it is not kept.
        @usableFromInline enum Kind {
            /// One entity, by id.
            case entity(Entity.ID)
            /// The untouched entities of these ranks, found in the storage only if they move.
            case untouched(Range<Int>)
        }

        /// The old and new positions of the candidate (of its first entity, for a run).
        @usableFromInline let old: Int
        @usableFromInline let new: Int
        /// How many entities it keeps in place if kept, and how many of them are stationary (untouched).
        @usableFromInline let weight: _MinimalMoves.Weight
        @usableFromInline let kind: Kind

        @inlinable init(old: Int, new: Int, weight: _MinimalMoves.Weight, kind: Kind) {
            self.old = old
            self.new = new
            self.weight = weight
            self.kind = kind
        }
    }

    /// The controller's change set in positions, and its results after it.
    @usableFromInline let changes: _GlobalChanges<Entity>
    @usableFromInline let storage: _SectionedStorage<Entity>
    /// The positions the window held before the change set, and those it holds after it.
    @usableFromInline let old: Range<Int>
    @usableFromInline let new: Range<Int>
    /// The indices in `changes.removed` of what left the old window's positions, and in `changes.added` of
    /// what arrived at the new window's.
    @usableFromInline let removed: Range<Int>
    @usableFromInline let added: Range<Int>
    /// The ranks among untouched entities of those the old and the new window hold.
    @usableFromInline let oldRanks: Range<Int>
    @usableFromInline let newRanks: Range<Int>
    /// The old window's sections: the old position of each one's first entity in the window, and its name.
    @usableFromInline let oldStarts: [Int]
    @usableFromInline let oldNames: [String]
    /// Where the new window lies in the storage: its index paths and sections.
    @usableFromInline let newSlice: _WindowSlice

    /// The shift of the window from `old` to `new` positions by `changes`, of which `removed` and `added`
    /// are the indices in those positions.
    ///
    /// - Complexity: O(log *n* + (*k* + *s*) log *k*) for the *k* entities of the change set and the *s*
    ///   sections the old window spans.
    @inlinable init(
        _ changes: _GlobalChanges<Entity>, from old: Range<Int>, to new: Range<Int>, removed: Range<Int>,
        added: Range<Int>, in storage: _SectionedStorage<Entity>
    ) {
        self.changes = changes
        self.storage = storage
        (self.old, self.new, self.removed, self.added) = (old, new, removed, added)
        oldRanks = (old.lowerBound - removed.lowerBound)..<(old.upperBound - removed.upperBound)
        newRanks = (new.lowerBound - added.lowerBound)..<(new.upperBound - added.upperBound)
        newSlice = _WindowSlice(new, in: storage)
        (oldStarts, oldNames) = Self.oldSections(changes, old, removed: removed, ranks: oldRanks, storage)
    }

    /// The old window's sections, in order: each one's first old position in the window, and its name.
    ///
    /// The untouched entities the old window held are, in the storage now, at the new positions of their
    /// ranks, among entities the change set added; counted section by section, and merged with the removed
    /// entities at their old positions, they give the old window's sections.
    ///
    /// - Complexity: O(log *n* + (*k* + *s*) log *k*).
    @inlinable static func oldSections(
        _ changes: _GlobalChanges<Entity>, _ old: Range<Int>, removed: Range<Int>, ranks: Range<Int>,
        _ storage: _SectionedStorage<Entity>
    ) -> (starts: [Int], names: [String]) {
        var untouched: [(name: String, count: Int)] = []
        if !ranks.isEmpty {
            let first = changes.newPosition(ofUntouched: ranks.lowerBound)
            let end = changes.newPosition(ofUntouched: ranks.upperBound - 1) + 1
            let (section, item) = storage.sections.position(ofWeight: first)
            var start = first - item
            var sections = storage.sections.makeIterator(from: section)
            while start < end, let current = sections.next() {
                let (from, to) = (Swift.max(start, first), Swift.min(start + current.items.count, end))
                let count = to - from - (changes.addedCount(before: to) - changes.addedCount(before: from))
                if count > 0 { untouched.append((current.name, count)) }
                start += current.items.count
            }
        }
        var (starts, names): ([Int], [String]) = ([], [])
        var position = old.lowerBound
        func append(_ name: String, _ count: Int) {
            if names.last != name {
                names.append(name)
                starts.append(position)
            }
            position += count
        }
        var (block, used) = (0, 0)
        func appendUntouched(through end: Int) {
            while position < end {
                let take = Swift.min(end - position, untouched[block].count - used)
                append(untouched[block].name, take)
                used += take
                if used == untouched[block].count { (block, used) = (block + 1, 0) }
            }
        }
        for index in removed {
            appendUntouched(through: changes.removed[index].position)
            append(changes.removed[index].sectionName, 1)
        }
        appendUntouched(through: old.upperBound)
        return (starts, names)
    }

    /// The old window's index path of an old position in it.
    ///
    /// - Complexity: O(log *s*).
    @inlinable func oldPath(_ position: Int) -> IndexPath {
        let section = oldStarts.partitioningIndex { $0 > position } - 1
        return IndexPath(_section: section, item: position - oldStarts[section])
    }

    /// The new window's index path of a new position in it.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func newPath(_ position: Int) -> IndexPath {
        newSlice.windowIndexPath(of: storage.indexPath(atGlobalIndex: position))!
    }

    /// The id and the section name of the entity at a new position, and its index path in the new window
    /// (`nil` outside it): one descent of the storage for the three.
    ///
    /// - Complexity: O(log *n*).
    @inlinable func entity(at position: Int) -> (id: Entity.ID, sectionName: String, path: IndexPath?) {
        let path = storage.indexPath(atGlobalIndex: position)
        let section = storage.sections[path[0]]
        return (section.items[path[1]].id, section.name, newSlice.windowIndexPath(of: path))
    }

    /// Calls `body` with the rank, the id and the storage's index path of each untouched entity of `ranks`, in
    /// order: one descent of the storage, then a walk that steps over what the change set added among them.
    ///
    /// - Complexity: O(log *n* + *r* + *a*) for *r* ranks and *a* entities added among them.
    @inlinable func forEachUntouched(_ ranks: Range<Int>, _ body: (Int, Entity.ID, IndexPath) -> Void) {
        guard !ranks.isEmpty else { return }
        var position = changes.newPosition(ofUntouched: ranks.lowerBound)
        var nextAdded = changes.addedCount(before: position)
        var (section, item) = storage.sections.position(ofWeight: position)
        var sections = storage.sections.makeIterator(from: section)
        var rank = ranks.lowerBound
        while rank < ranks.upperBound, let current = sections.next() {
            var slots = current.items.makeIterator(from: item)
            while rank < ranks.upperBound, let slot = slots.next() {
                if nextAdded < changes.added.count && changes.added[nextAdded] == position {
                    nextAdded += 1
                } else {
                    body(rank, slot.id, IndexPath(_section: section, item: item))
                    rank += 1
                }
                (position, item) = (position + 1, item + 1)
            }
            (section, item) = (section + 1, 0)
        }
    }

    /// The window's change set.
    ///
    /// - Complexity: O((*k* + *w*) log *n* + *s* log *k*) for the *k* entities of the change set, *w* entities
    ///   that enter or leave the window, and *s* sections it spans: it moves at most 2*k* entities, since keeping
    ///   every untouched one is a candidate answer.
    @inlinable func changeSet() -> ChangeSet<Entity> {
        var builder = _ChangeSetBuilder<Entity>()
        diffSections(into: &builder)
        // What the change set removed from the old window's positions, by id: those it added back at the new
        // window's stay, the others leave.
        var left: [Entity.ID: Int] = [:]
        for index in removed { left[changes.removed[index].id] = index }
        var stayed = Set<Entity.ID>()
        var candidates: [Candidate] = []
        // Where the runs of untouched survivors are cut: around each candidate, in both orders.
        var cuts: [Int] = []
        for index in added {
            let position = changes.added[index]
            let (id, sectionName, path) = entity(at: position)
            guard let removal = left.removeValue(forKey: id).map({ (index: $0, entry: changes.removed[$0]) }) else {
                builder.insert(id, at: path!)
                continue
            }
            stayed.insert(id)
            guard removal.entry.sectionName == sectionName else {
                builder.move(id, from: oldPath(removal.entry.position), to: path!)
                continue
            }
            candidates.append(
                Candidate(
                    old: removal.entry.position, new: position, weight: .init(kept: 1, stationary: 0), kind: .entity(id)
                ))
            cuts += [removal.entry.position - removal.index, position - index]
        }
        for (id, index) in left { builder.delete(id, at: oldPath(changes.removed[index].position)) }
        // Untouched entities shifted across the window's edges.
        let survivorStart = Swift.max(oldRanks.lowerBound, newRanks.lowerBound)
        let survivors = survivorStart..<Swift.max(survivorStart, Swift.min(oldRanks.upperBound, newRanks.upperBound))
        for run in Self.ranks(oldRanks, outside: survivors) {
            forEachUntouched(run) { rank, id, _ in
                builder.delete(id, at: oldPath(changes.oldPosition(ofUntouched: rank)))
            }
        }
        for run in Self.ranks(newRanks, outside: survivors) {
            forEachUntouched(run) { _, id, path in builder.insert(id, at: newSlice.windowIndexPath(of: path)!) }
        }
        // Survivors whose content changed; an untouched one is a candidate of its own, not stationary: its own
        // event changed it.
        var updatedRanks = Set<Int>()
        let firstUpdate = changes.updated.partitioningIndex { $0 >= new.lowerBound }
        let updateEnd = changes.updated.partitioningIndex { $0 >= new.upperBound }
        for index in firstUpdate..<updateEnd {
            let (position, id) = (changes.updated[index], changes.updatedIDs[index])
            let addedBefore = changes.addedCount(before: position)
            if addedBefore < changes.added.count && changes.added[addedBefore] == position {
                guard stayed.contains(id) else { continue }
            } else {
                let rank = position - addedBefore
                guard survivors.contains(rank) else { continue }
                candidates.append(
                    Candidate(
                        old: changes.oldPosition(ofUntouched: rank), new: position,
                        weight: .init(kept: 1, stationary: 0), kind: .entity(id)))
                cuts += [rank, rank + 1]
                updatedRanks.insert(rank)
            }
            builder.update(id, at: newPath(position))
        }
        appendUntouchedRuns(of: survivors, cutAt: cuts, except: updatedRanks, to: &candidates)
        reportMoves(among: candidates, into: &builder)
        return builder.build()
    }

    /// Deletes the old window's sections the new one lacks, and inserts the new one's the old one lacked.
    ///
    /// - Complexity: O(log *n* + *s*) for *s* sections.
    @inlinable func diffSections(into builder: inout _ChangeSetBuilder<Entity>) {
        var newNames: [String] = []
        newNames.reserveCapacity(newSlice.sectionCount)
        var sections = storage.sections.makeIterator(from: newSlice.firstSection)
        while newNames.count < newSlice.sectionCount, let section = sections.next() { newNames.append(section.name) }
        guard newNames != oldNames else { return }
        let (oldSet, newSet) = (Set(oldNames), Set(newNames))
        for (index, name) in oldNames.enumerated() where !newSet.contains(name) {
            builder.deleteSection(index, name: name)
        }
        for (index, name) in newNames.enumerated() where !oldSet.contains(name) {
            builder.insertSection(index, name: name)
        }
    }

    /// The runs of untouched survivors between the cuts, as candidates weighing their length: untouched entities
    /// are stationary, so that when several minimal sets of moves exist they stay put.
    @inlinable func appendUntouchedRuns(
        of survivors: Range<Int>, cutAt cuts: [Int], except updatedRanks: Set<Int>, to candidates: inout [Candidate]
    ) {
        guard !survivors.isEmpty else { return }
        var bounds = cuts.filter { $0 > survivors.lowerBound && $0 < survivors.upperBound }
        bounds += [survivors.lowerBound, survivors.upperBound]
        bounds.sort()
        for (lower, upper) in zip(bounds, bounds.dropFirst()) where lower < upper {
            if upper == lower + 1 && updatedRanks.contains(lower) { continue }
            let length = upper - lower
            candidates.append(
                Candidate(
                    old: changes.oldPosition(ofUntouched: lower), new: changes.newPosition(ofUntouched: lower),
                    weight: .init(kept: length, stationary: length), kind: .untouched(lower..<upper)))
        }
    }

    /// Moves the candidates outside a maximum-weight set kept in order.
    ///
    /// - Complexity: O(*c* log *c*) for *c* candidates, plus O(log *n*) per entity moved.
    @inlinable func reportMoves(among candidates: [Candidate], into builder: inout _ChangeSetBuilder<Entity>) {
        guard candidates.count > 1 else { return }
        let candidates = candidates.sorted { $0.old < $1.old }
        let kept = _MinimalMoves.kept(newKeys: candidates.map(\.new), weights: candidates.map(\.weight))
        for (candidate, isKept) in zip(candidates, kept) where !isKept {
            switch candidate.kind {
            case .entity(let id):
                builder.move(id, from: oldPath(candidate.old), to: newPath(candidate.new))
            case .untouched(let ranks):
                forEachUntouched(ranks) { rank, id, path in
                    builder.move(
                        id, from: oldPath(changes.oldPosition(ofUntouched: rank)),
                        to: newSlice.windowIndexPath(of: path)!)
                }
            }
        }
    }

    /// The ranks of `ranks` outside `survivors`, which lies within it or is empty: at most a run at each edge.
    @inlinable static func ranks(_ held: Range<Int>, outside survivors: Range<Int>) -> [Range<Int>] {
        guard !survivors.isEmpty else { return [held] }
        return [held.lowerBound..<survivors.lowerBound, survivors.upperBound..<held.upperBound]
    }
}
