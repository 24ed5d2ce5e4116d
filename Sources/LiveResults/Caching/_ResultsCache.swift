import Foundation

/// A definition's ``ResultsCachePolicy`` with the coding of its entities and cursors, whose types it
/// erases so that ``FetchDefinition`` stays generic over the entity only.
///
/// A plain definition's results are saved as a JSON array of the entities; a paginated one's as an
/// object with the entities, the cursors onward and the page counts (``_CachedPages``).
@usableFromInline struct _ResultsCache<Entity: FetchableEntity>: Sendable {
    @usableFromInline let policy: ResultsCachePolicy
    /// Encodes the results shown: a chain of one page in display order, with the cursors of the pages.
    @usableFromInline let encode: @Sendable (_PageChain<Entity>) throws -> Data
    @usableFromInline let decode: @Sendable (Data) throws -> _PageChain<Entity>

    /// The cache of a plain definition.
    @usableFromInline init(_ policy: ResultsCachePolicy) where Entity: Codable {
        self.policy = policy
        self.encode = { chain in try JSONEncoder().encode(chain.pages.first ?? []) }
        self.decode = { data in _PageChain(request: try JSONDecoder().decode([Entity].self, from: data)) }
    }

    /// The cache of a paginated definition whose cursors are `Cursor`s.
    @usableFromInline init<Cursor: Codable & Sendable>(_ policy: ResultsCachePolicy, cursor: Cursor.Type)
    where Entity: Codable {
        self.policy = policy
        self.encode = { chain in try JSONEncoder().encode(_CachedPages<Entity, Cursor>(chain)) }
        self.decode = { data in try JSONDecoder().decode(_CachedPages<Entity, Cursor>.self, from: data).chain() }
    }
}

/// What a paginated definition saves: the entities shown, and where its pages stand.
struct _CachedPages<Entity: FetchableEntity & Codable, Cursor: Codable & Sendable>: Codable {
    /// A cursor, boxed so that a `Cursor` that is itself optional keeps `.some(nil)` apart from "no page".
    struct Box: Codable {
        var value: Cursor
    }

    var entities: [Entity]
    var next: Box?
    var previous: Box?
    var forwardPages: Int
    var backwardPages: Int

    init(_ chain: _PageChain<Entity>) {
        // Only cursors of this definition's source are in its chains, so the casts cannot fail.
        self.entities = chain.pages.first ?? []
        self.next = chain.next.map { Box(value: $0 as! Cursor) }
        self.previous = chain.previous.map { Box(value: $0 as! Cursor) }
        self.forwardPages = chain.forwardPages
        self.backwardPages = chain.backwardPages
    }

    /// The most pages a saved chain may count: a damaged or altered cache must neither overflow the counts nor
    /// have the next fetch reload pages almost without end. (A chain's pages may hold no entity it shows, when
    /// the controller's `isIncluded` leaves them out, so the entities do not bound them.)
    static var maximumPages: Int { 1_000_000 }

    /// The chain saved, unless its page counts are negative or above ``maximumPages``.
    func chain() throws -> _PageChain<Entity> {
        guard (0...Self.maximumPages).contains(forwardPages),
            (0...Self.maximumPages - forwardPages).contains(backwardPages)
        else {
            throw DecodingError.dataCorrupted(
                .init(
                    codingPath: [],
                    debugDescription: "\(forwardPages) pages forward and \(backwardPages) back are not page counts"))
        }
        return _PageChain(
            pages: [entities], next: next.map { $0.value as any Sendable },
            previous: previous.map { $0.value as any Sendable },
            forwardPages: forwardPages, backwardPages: backwardPages)
    }
}
