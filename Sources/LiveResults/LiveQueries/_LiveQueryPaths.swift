/// The functions an event of a live query runs through, formed where the entity type is known.
///
/// Generic code compiled once in this module runs unspecialized: every operation on the entity goes through
/// its type's metadata and witness tables, some fifteen times the cost of the same code specialized. A
/// `LiveQueryRegistry` is made in its user's module (its initializer is `@inlinable`), and there it forms
/// these closures, specialized for the user's entity; the registry's own bookkeeping, which runs per query
/// rather than per event, calls through them. So the path of every event — the router's subscriber, the
/// controllers (their ordering's comparisons are closures formed where a controller is made), their
/// subscribers, the windows' observers — is specialized code, whichever module asks for a query or a window
/// later.
@usableFromInline struct _LiveQueryPaths<Entity: QueryableEntity>: Sendable {
    /// The subscriber through which the source's events reach the router; it holds the router weakly.
    @usableFromInline let upstream: @Sendable (_QueryRouter<Entity>) -> EventSubscriber<Entity>
    /// A query's controller over `definition`, ordered and sectioned as the query says.
    @usableFromInline let controller:
        @Sendable (FetchDefinition<Entity>, LiveQuery<Entity>) -> FetchedResultsController<Entity>
    /// The subscriber through which the router delivers to a query's controller.
    @usableFromInline let subscriber: @Sendable (FetchedResultsController<Entity>) -> EventSubscriber<Entity>
    /// Whether an entity is in a query's results, as its controller asks of every event.
    @usableFromInline let isIncluded: @Sendable (LiveQuery<Entity>) -> @Sendable (Entity) -> Bool
    /// A window of a query's controller; the first one subscribes the controller's windows to its changes.
    @usableFromInline let window: @Sendable (FetchedResultsController<Entity>, WindowRange) -> LiveWindow<Entity>

    @inlinable init() {
        upstream = { router in
            EventSubscriber(
                receive: { [weak router] events in router?.route(events) },
                receiveOne: { [weak router] event in router?.route(event) },
                reportMalformedEvent: { [weak router] error in router?.broadcastMalformed(error) })
        }
        controller = { definition, query in
            FetchedResultsController(
                definition: definition, sortDescriptors: query.sortDescriptors,
                sectionNameKeyPath: query.sectionNameKeyPath)
        }
        subscriber = { controller in controller.subscriber }
        isIncluded = { query in query._inclusion }
        window = { controller, range in controller.window(range) }
    }
}
