/// A source of live results that can answer any ``LiveQuery`` over its entities: it fetches the rows a query
/// selects and delivers the events of all its rows.
///
/// `PostgresLiveTable` and `GRDBLiveTable` adopt it, writing a query's filters as SQL with bound values. A
/// ``LiveQueryRegistry`` makes one controller per distinct query, observing the source's events once for all
/// of them and routing each event only to the queries it can change.
///
/// ```swift
/// struct TodoStore: QueryableSource {
///     let bus = EventBus<Todo>()
///     func fetchDefinition(for query: LiveQuery<Todo>) -> FetchDefinition<Todo> {
///         FetchDefinition(request: { try await database.todos().filter(query.isIncluded) },
///                         isIncluded: query.isIncluded)
///     }
///     func subscribe(_ subscriber: EventSubscriber<Todo>) -> EventSubscription { bus.subscribe(subscriber) }
/// }
/// ```
public protocol QueryableSource<Entity>: EventSource where Entity: QueryableEntity {
    /// A definition that fetches the entities `query` selects (any order: the controller sorts them), whose
    /// `isIncluded` is ``LiveQuery/isIncluded(_:)``.
    ///
    /// Fetches must meet the source's events: an event committed while a fetch runs is delivered to
    /// subscribers (the controller replays it onto the fetch's result), one committed before the fetch
    /// started is not delivered after the fetch ended.
    func fetchDefinition(for query: LiveQuery<Entity>) -> FetchDefinition<Entity>

    /// Returns once every change committed to the source before the call has been delivered to its subscribers:
    /// each subscription's ``EventSubscriber/receive(_:)-([EntityEvent<Entity>])`` has been called with it and has
    /// returned.
    ///
    /// This is what lets a reader see its own writes in live results that a source updates after its commits (a
    /// database's log, its notifications): write, synchronize, then read. A subscriber that queues what it
    /// receives applies it later; ``LiveQueryResults/synchronize()`` also waits for the controller's queue, so that
    /// its ``LiveQueryResults/controller``'s snapshot shows the changes.
    ///
    /// The default returns at once: right for a source that delivers each change to its subscribers before the
    /// write that made it returns (``EventBus``, an in-memory store publishing on it). A source that delivers later
    /// implements it, bounded by a timeout of its own.
    ///
    /// - Throws: The source's error when it cannot tell in time (its timeout passed, it cannot reach its
    ///   database); the caller then has no guarantee.
    /// - Complexity: The source's: one round trip to its database and through its deliveries, for a database.
    func synchronize() async throws
}

extension QueryableSource {
    /// Returns at once: the source delivers each change before the write that made it returns.
    ///
    /// - Complexity: O(1).
    public func synchronize() async throws {}
}
