import Foundation

/// Where a window's positions lie in its controller's storage: the display-order positions it covers,
/// and the sections and items they span, worked out once per read so that the window's read API maps
/// its own coordinates onto the storage's in O(1) more than the controller's.
@usableFromInline struct _WindowSlice: Sendable, Equatable {
    /// The display-order positions of the controller's results that the window holds.
    @usableFromInline let positions: Range<Int>
    /// The storage's section of the window's first entity (0 when the window is empty).
    @usableFromInline let firstSection: Int
    /// The item, in ``firstSection``, of the window's first entity.
    @usableFromInline let firstItem: Int
    /// The number of sections the window spans.
    @usableFromInline let sectionCount: Int
    /// The item, in the window's last section, just past the window's last entity.
    @usableFromInline let lastItemEnd: Int

    /// The slice of `storage` at `positions`, which must lie within its count.
    ///
    /// - Complexity: O(log *s*) for *s* sections.
    @inlinable init<Entity>(_ positions: Range<Int>, in storage: _SectionedStorage<Entity>) {
        precondition(positions.lowerBound >= 0 && positions.upperBound <= storage.count, "window out of range")
        self.positions = positions
        guard !positions.isEmpty else {
            (firstSection, firstItem, sectionCount, lastItemEnd) = (0, 0, 0, 0)
            return
        }
        let first = storage.sections.position(ofWeight: positions.lowerBound)
        let last = storage.sections.position(ofWeight: positions.upperBound - 1)
        (firstSection, firstItem) = (first.position, first.remainder)
        sectionCount = last.position - first.position + 1
        lastItemEnd = last.remainder + 1
    }

    /// The number of entities in the window.
    @inlinable var count: Int { positions.count }

    /// The items of the window's section `section` (its own index), in the storage's section of `size` items.
    @inlinable func items(ofSection section: Int, size: Int) -> Range<Int> {
        let start = section == 0 ? firstItem : 0
        let end = section == sectionCount - 1 ? lastItemEnd : size
        return start..<end
    }

    /// The storage's index path of the window's index path, or `nil` when it is not in the window.
    @inlinable func storageIndexPath<Entity>(
        of indexPath: IndexPath, in storage: _SectionedStorage<Entity>
    ) -> IndexPath? {
        guard indexPath.count == 2, indexPath[0] >= 0, indexPath[0] < sectionCount else { return nil }
        let section = firstSection + indexPath[0]
        let items = items(ofSection: indexPath[0], size: storage.sections[section].items.count)
        guard indexPath[1] >= 0, indexPath[1] < items.count else { return nil }
        return IndexPath(_section: section, item: items.lowerBound + indexPath[1])
    }

    /// The window's index path of the storage's index path, or `nil` when it is outside the window.
    @inlinable func windowIndexPath(of indexPath: IndexPath) -> IndexPath? {
        let section = indexPath[0] - firstSection
        guard section >= 0, section < sectionCount else { return nil }
        let item = indexPath[1] - (section == 0 ? firstItem : 0)
        guard item >= 0, section < sectionCount - 1 || indexPath[1] < lastItemEnd else { return nil }
        return IndexPath(_section: section, item: item)
    }
}
