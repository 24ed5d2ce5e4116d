import Foundation
import LiveResults

/// A query's rows with what `select=` embeds, kept live at the cost of what changed: a controller of
/// ``EmbeddedRow``s, in the query's order, whose objects are PostgREST's answer for the same query.
///
/// ```swift
/// let select = try SelectList(parsing: "id,title,assignee:people(id,name)")
/// let embedding = try LiveEmbedding(query: query, select: select, table: "todos", source: todos, relations: relations)
/// try await embedding.fetch()
/// let top = embedding.controller.window(.first(20))   // stream it as any window: its rows encode as their objects
/// ```
///
/// It follows the query's source and the source of every table `select=` embeds, at any depth:
/// - A parent's event re-embeds that parent: it enters, moves (only when its own sort key changed), is updated
///   or leaves as the query's own rows do.
/// - A related row's event (a person renamed, a child inserted, updated or deleted) finds, among what each
///   parent's embedding read (the related rows, and the join values that one-to-many resources looked up),
///   the parents it can change, re-embeds only those and reports them *updated*, in one change set per batch
///   of events; a batch that changes no parent changes nothing. With `!inner`, a parent enters or leaves as
///   its related rows do.
///
/// When the query's table is embedded too (a person's to-dos under each to-do's assignee), its events count
/// both ways, in one change set. An invalidation (of any of the tables) refetches the whole query.
///
/// - Complexity: The fetch reads the query's rows and each embedded table once per level. A related row's
///   event costs O(*a* log *n*) for the *a* parents it changes, plus one read of the related tables for them;
///   never a read of the whole query.
public final class LiveEmbedding<Source: QueryableSource>: Sendable where Source.Entity: Codable {
    /// The query's entity.
    public typealias Parent = Source.Entity

    /// The query whose rows are embedded.
    ///
    /// - Complexity: O(1).
    public let query: LiveQuery<Parent>
    /// What each row's object holds.
    ///
    /// - Complexity: O(1).
    public let select: SelectList
    /// The embedded rows, in the query's order (read it and observe it, never fetch it: see ``fetch()``).
    ///
    /// - Complexity: O(1).
    public let controller: FetchedResultsController<EmbeddedRow<Parent>>

    private let run: _EmbeddingRun<Source>
    private let subscription: EventSubscription
    private let router: _RelatedRouter
    private let follower: Int
    private let work: AsyncStream<_EmbeddingRun<Source>.Work>.Continuation
    /// The windows shared by range (see ``window(_:)``).
    private let windows: _SharedWindows<EmbeddedRow<Parent>>

    /// Embeds `select` in the rows of `query`, read from `source`, a table that `relations` declares as
    /// `table`; nothing is read before ``fetch()``.
    ///
    /// - Parameters:
    ///   - query: The rows: their filters, order and sections.
    ///   - select: What each row's object holds (checked already: see `PostgRESTQuery.validate(for:relations:)`).
    ///   - table: The name of the query's table in `relations`.
    ///   - source: The query's source.
    ///   - relations: The tables `select` embeds, and their foreign keys.
    ///   - encoder: Encodes the query's rows (the route's encoder, so that the objects are those `GET` answers).
    /// - Throws: `PGRST200` or `PGRST201` for a resource that names no relationship, or several.
    /// - Complexity: O(*r*) for *r* embedded resources.
    public convenience init(
        query: LiveQuery<Parent>, select: SelectList, table: String, source: Source, relations: LiveRelations,
        encoder: JSONEncoder = JSONEncoder()
    ) throws(PostgRESTError) {
        try self.init(
            query: query, select: select, table: table, source: source, relations: relations,
            router: _RelatedRouter(relations: relations), encoder: encoder)
    }

    /// An embedding whose related tables' events come through `router`, shared with the other embeddings of a
    /// route (see ``init(query:select:table:source:relations:encoder:)``).
    init(
        query: LiveQuery<Parent>, select: SelectList, table: String, source: Source, relations: LiveRelations,
        router: _RelatedRouter, encoder: JSONEncoder
    ) throws(PostgRESTError) {
        let tables = try Self.tables(of: select, from: table, relations: relations)
        let (stream, work) = AsyncStream.makeStream(of: _EmbeddingRun<Source>.Work.self)
        // The query's own table comes through one subscription of its own: its events are its parents' and,
        // when the table is embedded too, related rows', in one change set.
        let parents = source.subscribe(EventSubscriber { events in work.yield(.parents(events)) })
        let follower = router.add(following: tables.subtracting([table])) { events, table in
            work.yield(.related(events, table: table))
        }
        let run = _EmbeddingRun(
            query: query, select: select, table: table, source: source, relations: relations,
            relatedTables: tables, router: router, follower: follower, encoder: encoder)
        self.query = query
        self.select = select
        self.controller = run.controller
        self.windows = _SharedWindows(of: run.controller)
        self.run = run
        self.subscription = parents
        self.router = router
        self.follower = follower
        self.work = work
        Task { [run] in
            for await item in stream { await run.perform(item) }
        }
    }

    deinit {
        subscription.cancel()
        router.remove(follower)
        work.finish()
    }

    /// Fetches the query's rows and embeds them: the controller's first results, or all of them again.
    ///
    /// Events that arrive meanwhile are applied after it, in order.
    ///
    /// - Throws: The query's or an embedded table's fetch error.
    /// - Complexity: One read of the query and of each embedded table per level, plus O(*n* log *n*) to order
    ///   the *n* rows.
    public func fetch() async throws {
        try await withCheckedThrowingContinuation { (done: CheckedContinuation<Void, any Error>) in
            work.yield(.fetch(done))
        }
    }

    /// A window of the embedded rows at `range`, shared with the other callers that ask for the same range while
    /// the embedding lives (so a client that reconnects finds its window's versions, and resumes with one
    /// catch-up), up to 32 ranges; beyond them a window of the caller's own, closed when released.
    ///
    /// - Complexity: O(1) for a shared window; O(log *W*) to make one over *W* windows.
    public func window(_ range: WindowRange) -> LiveWindow<EmbeddedRow<Parent>> { windows.window(range) }

    /// The tables `select` embeds from `table`, at every depth.
    private static func tables(
        of select: SelectList, from table: String, relations: LiveRelations
    ) throws(PostgRESTError) -> Set<String> {
        var tables = Set<String>()
        for resource in select.embeddedResources {
            let target = try relations.relationship(from: table, for: resource).target.name
            tables.insert(target)
            tables.formUnion(try Self.tables(of: resource.select, from: target, relations: relations))
        }
        return tables
    }
}
