import Foundation

/// A section and an item index: an index path without `IndexPath`'s storage, for internal use.
@usableFromInline struct _Place: Hashable, Sendable {
    @usableFromInline var section: Int
    @usableFromInline var item: Int

    @usableFromInline
    init(section: Int, item: Int) {
        self.section = section
        self.item = item
    }

    @inlinable var indexPath: IndexPath { IndexPath(_section: section, item: item) }
}

extension IndexPath {
    /// A two-element index path, built without the array that `init(indexes:)` takes: that array is a
    /// heap allocation on every call, which showed in the per-event profile.
    @inlinable init(_section section: Int, item: Int) {
        self.init(index: section)
        append(item)
    }
}
