/// The pages a fetch loaded, in the order it loaded them: from the first page forward, then backward
/// from the first page's previous cursor.
///
/// A plain definition's fetch is a chain of one page without cursors, so fetches of both kinds take the
/// same way through the controller.
@usableFromInline struct _PageChain<Entity: FetchableEntity>: Sendable {
    @usableFromInline var pages: [[Entity]]
    /// Where the next page after the last forward page starts.
    @usableFromInline var next: (any Sendable)?
    /// Where the page before the last backward page (or the first page) starts.
    @usableFromInline var previous: (any Sendable)?
    /// Pages loaded from the first page on, the first included.
    @usableFromInline var forwardPages: Int
    @usableFromInline var backwardPages: Int

    @inlinable init(
        pages: [[Entity]], next: (any Sendable)?, previous: (any Sendable)?, forwardPages: Int, backwardPages: Int
    ) {
        self.pages = pages
        self.next = next
        self.previous = previous
        self.forwardPages = forwardPages
        self.backwardPages = backwardPages
    }

    /// The result of a plain request: one page, nothing before or after it.
    @inlinable init(request result: [Entity]) {
        self.init(pages: [result], next: nil, previous: nil, forwardPages: 1, backwardPages: 0)
    }

    /// The chain's entities as one fetch result that gives what loading its pages one by one gives.
    ///
    /// Inside a page, the first occurrence of an id is kept (as in any fetch result). Across pages, an
    /// id seen again is an update: the later page's version takes the earlier one's place, or removes it
    /// when `isIncluded` rejects it (an entity rejected before and included later takes its later place).
    /// A single page is returned as it is, for ``_ResultsCore/replaceAll(with:thenReplaying:)`` to check.
    ///
    /// - Returns: The entities, and the ids a page held more than once (their later occurrences dropped).
    /// - Complexity: O(*n*) expected for *n* entities in all; O(1) for a single page.
    @inlinable func folded(isIncluded: (Entity) -> Bool) -> (entities: [Entity], duplicateIDs: [Entity.ID]) {
        guard pages.count > 1 else { return (pages.first ?? [], []) }
        var slots: [Entity?] = []
        var slotByID: [Entity.ID: Int] = [:]
        var duplicateIDs: [Entity.ID] = []
        for page in pages {
            let (entities, repeatedIDs) = _DuplicateIDs.firstOccurrences(in: page)
            duplicateIDs += repeatedIDs
            for entity in entities {
                let slot = slotByID[entity.id]
                switch (slot, isIncluded(entity)) {
                case (let slot?, true): slots[slot] = entity
                case (let slot?, false):
                    slots[slot] = nil
                    slotByID[entity.id] = nil
                case (nil, true):
                    slotByID[entity.id] = slots.count
                    slots.append(entity)
                case (nil, false): break
                }
            }
        }
        return (slots.compactMap { $0 }, duplicateIDs)
    }
}

extension _PageSource {
    /// Loads the first page, then up to `forward - 1` more by the next cursors, then up to `backward`
    /// pages by the previous cursors, stopping in each direction where a page has no cursor onward.
    ///
    /// - Throws: The first page request's error; the pages loaded before it are dropped.
    @inlinable func loadChain(
        forward: Int, backward: Int, loading load: (any Sendable) async throws -> LoadedPage
    ) async throws -> _PageChain<Entity> {
        let first = try await load(firstCursor)
        var chain = _PageChain(
            pages: [first.entities], next: first.next, previous: first.previous, forwardPages: 1, backwardPages: 0)
        while chain.forwardPages < forward, let cursor = chain.next {
            let page = try await load(cursor)
            chain.pages.append(page.entities)
            chain.next = page.next
            chain.forwardPages += 1
        }
        while chain.backwardPages < backward, let cursor = chain.previous {
            let page = try await load(cursor)
            chain.pages.append(page.entities)
            chain.previous = page.previous
            chain.backwardPages += 1
        }
        return chain
    }
}
