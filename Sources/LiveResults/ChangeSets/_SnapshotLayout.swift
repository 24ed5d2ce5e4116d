import Foundation

/// One side of a snapshot diff, flattened: every id in display order, and where each section starts.
@usableFromInline struct _SnapshotLayout<ID: Hashable> {
    @usableFromInline var ids: ContiguousArray<ID> = []
    @usableFromInline var names: [String] = []
    /// The display position of each section's first entity, then the number of entities.
    @usableFromInline var starts: [Int] = []

    /// The layout of `storage`.
    ///
    /// - Complexity: O(*n*), walking the trees in order.
    @inlinable init<Entity: FetchableEntity>(_ storage: _SectionedStorage<Entity>) where Entity.ID == ID {
        ids.reserveCapacity(storage.count)
        names.reserveCapacity(storage.sections.count)
        starts.reserveCapacity(storage.sections.count + 1)
        for section in storage.sections {
            names.append(section.name)
            starts.append(ids.count)
            for slot in section.items { ids.append(slot.id) }
        }
        starts.append(ids.count)
    }

    @inlinable var count: Int { ids.count }
    @inlinable var sectionCount: Int { names.count }

    /// The positions of the entities of a section.
    @inlinable func positions(ofSection section: Int) -> Range<Int> {
        starts[section]..<starts[section + 1]
    }

    /// The section holding a position.
    ///
    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable func section(containing position: Int) -> Int {
        var (low, high) = (0, names.count - 1)
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= position { low = middle } else { high = middle - 1 }
        }
        return low
    }

    @inlinable func indexPath(of position: Int, inSection section: Int) -> IndexPath {
        IndexPath(_section: section, item: position - starts[section])
    }

    @inlinable func indexPath(of position: Int) -> IndexPath {
        indexPath(of: position, inSection: section(containing: position))
    }
}
