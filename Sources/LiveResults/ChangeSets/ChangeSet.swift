import Foundation

/// Exactly what changed between two snapshots of a ``FetchedResultsController``.
///
/// Applying a change set to the old snapshot gives the new one:
/// 1. remove the items at ``deletedItems`` and at every ``movedItems`` `from` (old coordinates);
/// 2. remove the sections at ``deletedSections`` (they are empty now);
/// 3. insert empty sections at ``insertedSections`` (new coordinates, ascending);
/// 4. insert the items at ``insertedItems`` and at every ``movedItems`` `to` (new coordinates, ascending).
///
/// An entity present before and after is a move only when its section changed or its position relative
/// to the other surviving entities changed; the set of moves is minimal, and the entities whose own
/// events changed them are the ones that move. ``updatedItems`` lists every surviving entity whose
/// content changed, in new coordinates, also when it moved.
///
/// Each index path array has a parallel array of entity ids (``deletedItemIDs`` for ``deletedItems``,
/// and so on), and ``itemChanges`` lists every change with its id, for id-based UIs:
///
/// ```swift
/// for change in changeSet.itemChanges {
///     switch change.kind {
///     case .insert(let indexPath): print("inserted", change.id, "at", indexPath)
///     case .delete(let indexPath): print("deleted", change.id, "from", indexPath)
///     case .move(let from, let to): print("moved", change.id, from, "→", to)
///     case .update(let indexPath): print("updated", change.id, "at", indexPath)
///     }
/// }
/// ```
public struct ChangeSet<Entity: FetchableEntity>: Sendable, Equatable {
    /// Sections that no longer exist, in old coordinates, ascending.
    public var deletedSections: [Int]
    /// Sections that are new, in new coordinates, ascending.
    public var insertedSections: [Int]
    /// Entities that are gone, in old coordinates, ascending.
    public var deletedItems: [IndexPath]
    /// Entities that are new, in new coordinates, ascending.
    public var insertedItems: [IndexPath]
    /// Entities that moved, ascending by their new index path.
    public var movedItems: [ItemMove]
    /// Surviving entities whose content changed, in new coordinates, ascending.
    public var updatedItems: [IndexPath]
    /// Sections whose presentation changed without an item change saying so, in new coordinates,
    /// ascending: a ``CollapsibleSections`` section that was collapsed or expanded, or whose number of
    /// hidden items changed. Always empty from a ``FetchedResultsController``.
    public var updatedSections: [Int]

    /// The names of ``deletedSections``, in the same order.
    public var deletedSectionNames: [String]
    /// The names of ``insertedSections``, in the same order.
    public var insertedSectionNames: [String]
    /// The names of ``updatedSections``, in the same order.
    public var updatedSectionNames: [String]
    /// The ids of ``deletedItems``, in the same order.
    public var deletedItemIDs: [Entity.ID]
    /// The ids of ``insertedItems``, in the same order.
    public var insertedItemIDs: [Entity.ID]
    /// The ids of ``movedItems``, in the same order.
    public var movedItemIDs: [Entity.ID]
    /// The ids of ``updatedItems``, in the same order.
    public var updatedItemIDs: [Entity.ID]

    /// Creates an empty change set.
    @inlinable public init() {
        deletedSections = []
        insertedSections = []
        deletedItems = []
        insertedItems = []
        movedItems = []
        updatedItems = []
        updatedSections = []
        deletedSectionNames = []
        insertedSectionNames = []
        updatedSectionNames = []
        deletedItemIDs = []
        insertedItemIDs = []
        movedItemIDs = []
        updatedItemIDs = []
    }

    /// Whether nothing changed.
    @inlinable public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && updatedSections.isEmpty && deletedItems.isEmpty
            && insertedItems.isEmpty && movedItems.isEmpty && updatedItems.isEmpty
    }
}

extension ChangeSet {
    /// Every section change: deletions (old coordinates) first, then insertions, then updates (new
    /// coordinates).
    ///
    /// - Complexity: O(*c*) for *c* section changes: it builds the array.
    @inlinable public var sectionChanges: [SectionChange] {
        zip(deletedSections, deletedSectionNames).map { SectionChange(kind: .delete($0), name: $1) }
            + zip(insertedSections, insertedSectionNames).map { SectionChange(kind: .insert($0), name: $1) }
            + zip(updatedSections, updatedSectionNames).map { SectionChange(kind: .update($0), name: $1) }
    }

    /// Every item change with its entity id: deletions, insertions, moves, then updates.
    ///
    /// - Complexity: O(*c*) for *c* item changes: it builds the array.
    @inlinable public var itemChanges: [ItemChange<Entity>] {
        zip(deletedItems, deletedItemIDs).map { ItemChange(kind: .delete($0), id: $1) }
            + zip(insertedItems, insertedItemIDs).map { ItemChange(kind: .insert($0), id: $1) }
            + zip(movedItems, movedItemIDs).map { ItemChange(kind: .move(from: $0.from, to: $0.to), id: $1) }
            + zip(updatedItems, updatedItemIDs).map { ItemChange(kind: .update($0), id: $1) }
    }
}

extension ChangeSet: CustomStringConvertible {
    /// A compact, readable summary such as `+§1 ~§2 -0.2 +1.0 ~0.1 0.3→1.1`.
    ///
    /// - Complexity: O(*c*) for *c* changes.
    @inlinable public var description: String {
        if isEmpty { return "no changes" }
        func path(_ indexPath: IndexPath) -> String { "\(indexPath[0]).\(indexPath[1])" }
        let parts: [String] =
            deletedSections.map { "-§\($0)" } + insertedSections.map { "+§\($0)" } + updatedSections.map { "~§\($0)" }
            + deletedItems.map { "-\(path($0))" } + insertedItems.map { "+\(path($0))" }
            + movedItems.map(\.description) + updatedItems.map { "~\(path($0))" }
        return parts.joined(separator: " ")
    }
}

/// One section change of a ``ChangeSet``.
public struct SectionChange: Hashable, Sendable {
    /// What happened to the section.
    public enum Kind: Hashable, Sendable {
        /// The section was inserted at this index (new coordinates).
        case insert(Int)
        /// The section at this index (old coordinates) was deleted.
        case delete(Int)
        /// The section at this index (new coordinates) changed its presentation: see
        /// ``ChangeSet/updatedSections``.
        case update(Int)
    }

    /// What happened.
    public var kind: Kind
    /// The section's name.
    public var name: String

    /// Creates a section change.
    @inlinable public init(kind: Kind, name: String) {
        self.kind = kind
        self.name = name
    }
}

/// One item change of a ``ChangeSet``, with the id of the entity it concerns.
public struct ItemChange<Entity: FetchableEntity>: Sendable, Equatable {
    /// What happened to the entity.
    public enum Kind: Hashable, Sendable {
        /// Inserted at this index path (new coordinates).
        case insert(IndexPath)
        /// Deleted from this index path (old coordinates).
        case delete(IndexPath)
        /// Moved from an old index path to a new one.
        case move(from: IndexPath, to: IndexPath)
        /// Content changed; this is its index path in new coordinates.
        case update(IndexPath)
    }

    /// What happened.
    public var kind: Kind
    /// The entity's id.
    public var id: Entity.ID

    /// Creates an item change.
    @inlinable public init(kind: Kind, id: Entity.ID) {
        self.kind = kind
        self.id = id
    }
}
