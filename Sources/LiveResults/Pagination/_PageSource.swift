/// A paginated definition's page request with its cursor type erased, so that ``FetchDefinition`` stays
/// generic over the entity only.
@usableFromInline struct _PageSource<Entity: FetchableEntity>: Sendable {
    /// A page as the controller sees it: the cursors are the definition's own, boxed.
    @usableFromInline struct LoadedPage: Sendable {
        @usableFromInline var entities: [Entity]
        @usableFromInline var next: (any Sendable)?
        @usableFromInline var previous: (any Sendable)?

        @inlinable init(entities: [Entity], next: (any Sendable)?, previous: (any Sendable)?) {
            self.entities = entities
            self.next = next
            self.previous = previous
        }
    }

    /// The cursor of the first page.
    @usableFromInline let firstCursor: any Sendable
    @usableFromInline let load: @Sendable (any Sendable) async throws -> LoadedPage

    @inlinable init<Cursor: Sendable>(
        firstPage: Cursor, pageRequest: @escaping @Sendable (Cursor) async throws -> Page<Entity, Cursor>
    ) {
        self.firstCursor = firstPage
        self.load = { cursor in
            // Only cursors this source produced come back here, so the cast cannot fail.
            let page = try await pageRequest(cursor as! Cursor)
            // `map`, not a plain conversion: a `Cursor` that is itself optional must stay boxed whole.
            return LoadedPage(
                entities: page.entities,
                next: page.next.map { $0 as any Sendable },
                previous: page.previous.map { $0 as any Sendable })
        }
    }
}
