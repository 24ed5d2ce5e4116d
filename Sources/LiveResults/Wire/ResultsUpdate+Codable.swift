import Foundation

/// The JSON form of an update, format 1 (see <doc:ResultsOverTheWire>):
///
/// ```json
/// { "format": 1, "version": "…", "base": null, "sections": [ { "name": "Home", "entities": [ … ] } ] }
/// { "format": 1, "version": "…", "base": "…", "changes": { "deletedItems": [ [0, 3] ], … } }
/// ```
///
/// Index paths are `[section, item]` arrays. Empty lists of a change set are left out when encoding,
/// and a missing list reads as empty.
extension ResultsUpdate: Codable {
    /// The format number this library writes and reads.
    ///
    /// - Complexity: O(1).
    public static var format: Int { 1 }

    private enum CodingKeys: String, CodingKey {
        case format, version, base, sections, changes
    }

    /// Reads an update of format 1.
    ///
    /// - Throws: `DecodingError` naming what is wrong: another format number (the error names it), a
    ///   missing or malformed field, an index path that is not two non-negative integers, or an entity
    ///   that does not decode.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let format = try container.decode(Int.self, forKey: .format)
        guard format == Self.format else {
            throw DecodingError.dataCorruptedError(
                forKey: .format, in: container,
                debugDescription:
                    "ResultsUpdate format \(format) is not supported: this reader reads format \(Self.format)"
            )
        }
        let version = try container.decode(ResultsVersion.self, forKey: .version)
        if let base = try container.decodeIfPresent(ResultsVersion.self, forKey: .base) {
            self.init(
                version: version, content: .changes(base: base, try container.decode(Changes.self, forKey: .changes)))
        } else {
            self.init(version: version, content: .results(try container.decode([Section].self, forKey: .sections)))
        }
    }

    /// Writes the update in format 1.
    ///
    /// - Complexity: O(*m*) for the *m* entities and positions it carries.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(Self.format, forKey: .format)
        try container.encode(version, forKey: .version)
        switch content {
        case .results(let sections):
            try container.encodeNil(forKey: .base)
            try container.encode(sections, forKey: .sections)
        case .changes(let base, let changes):
            try container.encode(base, forKey: .base)
            try container.encode(changes, forKey: .changes)
        }
    }
}

extension ResultsUpdate.Item: Codable {
    private enum CodingKeys: String, CodingKey {
        case indexPath = "at"
        case entity
    }

    /// Reads an item: `{ "at": [section, item], "entity": … }`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            indexPath: try container.decode(_WireIndexPath.self, forKey: .indexPath).indexPath,
            entity: try container.decode(Entity.self, forKey: .entity))
    }

    /// Writes an item: `{ "at": [section, item], "entity": … }`.
    ///
    /// - Complexity: O(1), plus encoding the entity.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(_WireIndexPath(indexPath), forKey: .indexPath)
        try container.encode(entity, forKey: .entity)
    }
}

extension ResultsUpdate.Changes: Codable {
    private enum CodingKeys: String, CodingKey {
        case deletedSections, insertedSections, deletedItems, insertedItems, movedItems, updatedItems
    }

    /// Reads a change set; a missing list is empty.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        func list<Element: Decodable>(_ key: CodingKeys) throws -> [Element] {
            try container.decodeIfPresent([Element].self, forKey: key) ?? []
        }
        self.init(
            deletedSections: try list(.deletedSections),
            insertedSections: try list(.insertedSections),
            deletedItems: try (list(.deletedItems) as [_WireIndexPath]).map(\.indexPath),
            insertedItems: try list(.insertedItems),
            movedItems: try (list(.movedItems) as [_WireMove]).map(\.move),
            updatedItems: try list(.updatedItems)
        )
    }

    /// Writes a change set, leaving out its empty lists.
    ///
    /// - Complexity: O(*m*) for the *m* positions and entities it carries.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        func list<Element: Encodable>(_ elements: [Element], _ key: CodingKeys) throws {
            if !elements.isEmpty { try container.encode(elements, forKey: key) }
        }
        try list(deletedSections, .deletedSections)
        try list(insertedSections, .insertedSections)
        try list(deletedItems.map(_WireIndexPath.init), .deletedItems)
        try list(insertedItems, .insertedItems)
        try list(movedItems.map(_WireMove.init), .movedItems)
        try list(updatedItems, .updatedItems)
    }
}

/// An index path as it travels: `[section, item]`.
@usableFromInline struct _WireIndexPath: Codable, Sendable {
    @usableFromInline let indexPath: IndexPath

    @usableFromInline init(_ indexPath: IndexPath) {
        self.indexPath = indexPath
    }

    @usableFromInline init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        guard container.count == 2 else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "an index path is [section, item], not \(container.count ?? 0) numbers"
            )
        }
        let section = try container.decode(Int.self)
        let item = try container.decode(Int.self)
        guard section >= 0, item >= 0 else {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "an index path has no negative numbers: [\(section), \(item)]")
        }
        indexPath = IndexPath(_section: section, item: item)
    }

    @usableFromInline func encode(to encoder: any Encoder) throws {
        var container = encoder.unkeyedContainer()
        try container.encode(indexPath[0])
        try container.encode(indexPath[1])
    }
}

/// A move as it travels: `{ "from": [section, item], "to": [section, item] }`.
@usableFromInline struct _WireMove: Codable, Sendable {
    @usableFromInline let from: _WireIndexPath
    @usableFromInline let to: _WireIndexPath

    @usableFromInline init(_ move: ItemMove) {
        from = _WireIndexPath(move.from)
        to = _WireIndexPath(move.to)
    }

    @usableFromInline var move: ItemMove { ItemMove(from: from.indexPath, to: to.indexPath) }
}
