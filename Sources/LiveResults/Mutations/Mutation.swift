/// A write whose effect is shown at once: it applies optimistic events, runs its operation, and then
/// either keeps the events and refreshes the results the write affects, or undoes them.
///
/// ```swift
/// let rename = Mutation(
///     controller: todos,
///     optimistic: { (todo: TodoItem) in [.updated(todo)] },
///     invalidating: [["todos"]], in: registry
/// ) { todo in
///     try await api.save(todo)
/// }
/// try await rename.run(edited)   // shown at once; rolled back if `save` throws
/// ```
///
/// ``run(_:)`` applies the events the `optimistic` closure returns for its input with
/// ``FetchedResultsController/applyOptimistically(_:)``, then awaits the operation:
///
/// - **It throws** (or the task is cancelled): the update is rolled back (each entity the events touched
///   returns to its earlier version, unless a later event changed it: the live version wins), and the
///   error is rethrown.
/// - **It returns**: the update is committed, every live registry controller under the `invalidating`
///   prefixes is refetched once, concurrently (as ``ResultsRegistry/invalidate(prefix:)`` does), and the
///   operation's result is returned.
///
/// A mutation is a value: define it once and run it for each input, from any task at once.
public struct Mutation<Entity: FetchableEntity, Input: Sendable, Output: Sendable>: Sendable {
    /// The controller that shows the optimistic events.
    public let controller: FetchedResultsController<Entity>
    /// The key prefixes refetched in ``registry`` after a successful operation.
    public let invalidatedPrefixes: [QueryKey]
    /// The registry whose keys are refetched; `nil` when nothing is invalidated.
    public let registry: ResultsRegistry?
    @usableFromInline let optimisticEvents: @Sendable (Input) -> [EntityEvent<Entity>]
    @usableFromInline let operation: @Sendable (Input) async throws -> Output

    /// Creates a mutation.
    ///
    /// - Parameters:
    ///   - controller: The controller that shows the optimistic events.
    ///   - optimistic: The events that show the write's expected effect, for an input; none by default.
    ///   - prefixes: The key prefixes to refetch in `registry` when the operation succeeds.
    ///   - registry: The registry of those keys; required when `prefixes` is not empty.
    ///   - operation: The write itself.
    public init(
        controller: FetchedResultsController<Entity>,
        optimistic: @escaping @Sendable (Input) -> [EntityEvent<Entity>] = { _ in [] },
        invalidating prefixes: [QueryKey] = [],
        in registry: ResultsRegistry? = nil,
        operation: @escaping @Sendable (Input) async throws -> Output
    ) {
        precondition(prefixes.isEmpty || registry != nil, "keys to invalidate need the registry that holds them")
        self.controller = controller
        self.optimisticEvents = optimistic
        self.invalidatedPrefixes = prefixes
        self.registry = registry
        self.operation = operation
    }

    /// Applies the optimistic events for `input`, runs the operation, and keeps or rolls back the events.
    ///
    /// - Parameter input: What to write.
    /// - Returns: The operation's result, once the invalidated keys are refetched.
    /// - Throws: The operation's error, once the optimistic events are rolled back.
    /// - Complexity: O(*k* log *n*) for *k* optimistic events and *n* entities shown, plus the operation
    ///   and the refetches.
    @discardableResult
    public func run(_ input: Input) async throws -> Output {
        let update = controller.applyOptimistically(optimisticEvents(input))
        let output: Output
        do {
            output = try await operation(input)
        } catch {
            update.rollBack()
            throw error
        }
        update.commit()
        // One pass over the prefixes, so that a controller under two of them is refetched once.
        await registry?.invalidate(prefixes: invalidatedPrefixes)
        return output
    }
}
