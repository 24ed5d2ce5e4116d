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
}
