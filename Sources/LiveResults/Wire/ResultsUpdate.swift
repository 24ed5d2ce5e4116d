import Foundation

/// One step of a controller's results on the wire: the whole results, or one change set with the
/// entities a copy elsewhere cannot know.
///
/// A controller's ``FetchedResultsController/updates(since:bufferLimit:)`` yields them; a
/// ``ResultsReplica`` applies them. The JSON form (`Codable`) is a public format, documented field by
/// field in <doc:ResultsOverTheWire>, so that any client, a browser included, can apply it.
///
/// A change-set update carries the positions of its change set, and only the entities inserted or
/// updated: its size follows the changes, never the number of results.
///
/// ```swift
/// for await update in controller.updates() {
///     try send(JSONEncoder().encode(update))
/// }
/// ```
public struct ResultsUpdate<Entity: FetchableEntity & Codable>: Sendable, Equatable {
    /// The version of the results after this update.
    public var version: ResultsVersion
    /// What the update carries.
    public var content: Content

    /// What an update carries.
    public enum Content: Sendable, Equatable {
        /// The whole results, section by section in order; it applies to anything.
        case results([Section])
        /// A change set that applies to the results at version `base`.
        case changes(base: ResultsVersion, Changes)
    }

    /// Creates an update.
    ///
    /// - Parameters:
    ///   - version: The version of the results after the update.
    ///   - content: The whole results, or a change set from a base version.
    @inlinable public init(version: ResultsVersion, content: Content) {
        self.version = version
        self.content = content
    }

    /// The version this update applies to; `nil` for the whole results, which apply to anything.
    ///
    /// - Complexity: O(1).
    @inlinable public var base: ResultsVersion? {
        switch content {
        case .results: nil
        case .changes(let base, _): base
        }
    }

    /// One section of the whole results.
    public struct Section: Sendable, Equatable, Codable {
        /// The section's name.
        public var name: String
        /// The section's entities, in order.
        public var entities: [Entity]

        /// Creates a section of the whole results.
        @inlinable public init(name: String, entities: [Entity]) {
            self.name = name
            self.entities = entities
        }
    }

    /// A change set as it travels: the positions of a ``ChangeSet`` (coordinates as there), with the
    /// entities that were inserted or updated.
    ///
    /// A client applies it by the contract of ``ChangeSet``: removes the items at ``deletedItems`` and
    /// at each move's `from` (old coordinates), removes the sections at ``deletedSections``, inserts the
    /// sections at ``insertedSections`` and then the items at ``insertedItems`` and at each move's `to`
    /// (new coordinates, ascending), and finally replaces the entities at ``updatedItems``.
    public struct Changes: Sendable, Equatable {
        /// Sections removed, in old coordinates, ascending.
        public var deletedSections: [Int]
        /// Sections inserted, with their names, in new coordinates, ascending.
        public var insertedSections: [InsertedSection]
        /// Items removed, in old coordinates, ascending.
        public var deletedItems: [IndexPath]
        /// Items inserted, with their entities, in new coordinates, ascending.
        public var insertedItems: [Item]
        /// Items moved, from old to new coordinates; the entity travels with its place.
        public var movedItems: [ItemMove]
        /// Items whose content changed, with their new content, in new coordinates, ascending.
        public var updatedItems: [Item]

        /// Creates a change set as it travels.
        @inlinable public init(
            deletedSections: [Int] = [], insertedSections: [InsertedSection] = [], deletedItems: [IndexPath] = [],
            insertedItems: [Item] = [], movedItems: [ItemMove] = [], updatedItems: [Item] = []
        ) {
            self.deletedSections = deletedSections
            self.insertedSections = insertedSections
            self.deletedItems = deletedItems
            self.insertedItems = insertedItems
            self.movedItems = movedItems
            self.updatedItems = updatedItems
        }

        /// Whether the change set changes nothing.
        ///
        /// - Complexity: O(1).
        @inlinable public var isEmpty: Bool {
            deletedSections.isEmpty && insertedSections.isEmpty && deletedItems.isEmpty && insertedItems.isEmpty
                && movedItems.isEmpty && updatedItems.isEmpty
        }
    }

    /// A section inserted by a change set: where, and its name.
    public struct InsertedSection: Sendable, Equatable, Codable {
        /// The section's index, in new coordinates.
        public var index: Int
        /// The section's name.
        public var name: String

        /// Creates an inserted section.
        @inlinable public init(index: Int, name: String) {
            self.index = index
            self.name = name
        }
    }

    /// An entity at an index path: an inserted item, or an updated one with its new content.
    public struct Item: Sendable, Equatable {
        /// Where the entity is, in new coordinates.
        public var indexPath: IndexPath
        /// The entity.
        public var entity: Entity

        /// Creates an item.
        @inlinable public init(indexPath: IndexPath, entity: Entity) {
            self.indexPath = indexPath
            self.entity = entity
        }
    }
}

extension ResultsUpdate {
    /// The whole results of `storage`, as version `version`.
    ///
    /// - Complexity: O(*n*).
    @inlinable init(version: ResultsVersion, wholeResultsOf storage: _SectionedStorage<Entity>) {
        let snapshot = FetchedResultsSnapshot(_storage: storage)
        self.init(
            version: version,
            content: .results(snapshot.sections.map { Section(name: $0.name, entities: Array($0.objects)) }))
    }

    /// The change set `changes`, which turned version `base` into `version`, with the entities of its
    /// inserted and updated items in the change set's order.
    ///
    /// - Complexity: O(*k*) for *k* changes.
    @inlinable init(
        version: ResultsVersion, base: ResultsVersion, changes: ChangeSet<Entity>, inserted: [Entity],
        updated: [Entity]
    ) {
        let wire = Changes(
            deletedSections: changes.deletedSections,
            insertedSections: zip(changes.insertedSections, changes.insertedSectionNames).map {
                InsertedSection(index: $0, name: $1)
            },
            deletedItems: changes.deletedItems,
            insertedItems: zip(changes.insertedItems, inserted).map { Item(indexPath: $0, entity: $1) },
            movedItems: changes.movedItems,
            updatedItems: zip(changes.updatedItems, updated).map { Item(indexPath: $0, entity: $1) }
        )
        self.init(version: version, content: .changes(base: base, wire))
    }

    /// The change set `changes`, which turned version `base` into `version`, whose results are `storage`.
    ///
    /// - Complexity: O(*k* log₁₆ *n*) for *k* inserted and updated entities.
    @inlinable init(
        version: ResultsVersion, base: ResultsVersion, changes: ChangeSet<Entity>,
        after storage: _SectionedStorage<Entity>
    ) {
        func items(_ indexPaths: [IndexPath], _ ids: [Entity.ID]) -> [Item] {
            zip(indexPaths, ids).map { Item(indexPath: $0, entity: storage.stored(forID: $1)!.entity) }
        }
        let wire = Changes(
            deletedSections: changes.deletedSections,
            insertedSections: zip(changes.insertedSections, changes.insertedSectionNames).map {
                InsertedSection(index: $0, name: $1)
            },
            deletedItems: changes.deletedItems,
            insertedItems: items(changes.insertedItems, changes.insertedItemIDs),
            movedItems: changes.movedItems,
            updatedItems: items(changes.updatedItems, changes.updatedItemIDs)
        )
        self.init(version: version, content: .changes(base: base, wire))
    }
}
