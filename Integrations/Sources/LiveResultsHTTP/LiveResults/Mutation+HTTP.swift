import LiveResults

extension Mutation {
    /// A mutation whose operation sends a typed request, requiring a 2xx or 3xx status, and whose output
    /// is the request's response.
    ///
    /// ```swift
    /// let rename = Mutation(
    ///     controller: todos, client: client,
    ///     optimistic: { (todo: Todo) in [.updated(todo)] },
    ///     invalidating: [["todos"]], in: registry
    /// ) { todo in
    ///     UpdateTodo(id: todo.id, body: TodoChanges(title: todo.title))
    /// }
    /// try await rename.run(edited)   // shown at once; rolled back on a 404, refetched on success
    /// ```
    ///
    /// - Parameters:
    ///   - controller: The controller that shows the optimistic events.
    ///   - client: The client that sends the request.
    ///   - optimistic: The events that show the write's expected effect; none by default.
    ///   - prefixes: The key prefixes to refetch in `registry` when the request succeeds.
    ///   - registry: The registry of those keys.
    ///   - request: The request of an input.
    public init<Request: APIRequest>(
        controller: FetchedResultsController<Entity>, client: HTTPAPIClient,
        optimistic: @escaping @Sendable (Input) -> [EntityEvent<Entity>] = { _ in [] },
        invalidating prefixes: [QueryKey] = [], in registry: ResultsRegistry? = nil,
        request: @escaping @Sendable (Input) throws -> Request
    ) where Output == Request.Response {
        self.init(
            controller: controller, optimistic: optimistic, invalidating: prefixes, in: registry,
            operation: { input in try await client.send(try request(input), requiringSuccess: true) })
    }
}
