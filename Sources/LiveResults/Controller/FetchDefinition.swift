import Foundation

/// What a ``FetchedResultsController`` shows: how to fetch the entities, which of them to include, and
/// the associations it fetches for them.
///
/// ```swift
/// let definition = FetchDefinition<Post>(
///     request: { try await store.fetchPosts() },
///     isIncluded: { $0.isPublished },
///     associations: [authors, tags]
/// )
/// ```
///
/// The inclusion rule applies to fetch results **and** to live events: an update that makes an entity
/// no longer included removes it, an update that makes it included inserts it.
public struct FetchDefinition<Entity: FetchableEntity>: Sendable {
    /// Fetches the full result. Called by every ``FetchedResultsController/performFetch()``.
    public typealias Request = @Sendable () async throws -> [Entity]

    /// Fetches the full result. For a paginated definition, it fetches the first page; the controller
    /// loads pages through the definition's page request instead.
    public var request: Request

    /// Decides whether an entity is shown.
    public var isIncluded: @Sendable (Entity) -> Bool

    /// The associations a controller registers when it is created. An association that is not listed
    /// registers when it is first read.
    public var associations: [any AssociationProtocol<Entity>]

    /// How often a fetch or a page request is tried before it fails; one attempt by default.
    public var retry: RetryPolicy

    /// The pages of a paginated definition; `nil` for a definition that fetches everything at once.
    @usableFromInline var _pages: _PageSource<Entity>?

    /// How the results are persisted; `nil` for a definition without a cache.
    @usableFromInline var _cache: _ResultsCache<Entity>?

    /// Creates a definition from a request, an optional inclusion rule and optional associations.
    ///
    /// - Parameters:
    ///   - request: Fetches every entity; the order of its result is the insertion order that breaks
    ///     ties between entities the sort descriptors consider equal.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    ///   - associations: The associations whose values the controller fetches for the entities shown.
    ///   - retry: How often the request is tried before it fails; once by default.
    @inlinable public init(
        request: @escaping Request,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true },
        associations: [any AssociationProtocol<Entity>] = [],
        retry: RetryPolicy = .none
    ) {
        self.request = request
        self.isIncluded = isIncluded
        self.associations = associations
        self.retry = retry
    }

    /// Creates a definition whose inclusion rule is a Foundation predicate.
    ///
    /// An entity for which the predicate throws is not included.
    ///
    /// ```swift
    /// FetchDefinition(request: fetchPosts, isIncluded: #Predicate<Post> { $0.score > 0 })
    /// ```
    @inlinable public init(
        request: @escaping Request,
        isIncluded predicate: Predicate<Entity>,
        associations: [any AssociationProtocol<Entity>] = [],
        retry: RetryPolicy = .none
    ) {
        self.init(
            request: request, isIncluded: { (try? predicate.evaluate($0)) ?? false }, associations: associations,
            retry: retry)
    }
}

extension FetchDefinition {
    /// Loads what a fetch shows: the request's result, or the pages of a paginated definition by `plan`,
    /// each request tried as ``retry`` says.
    @inlinable func loadChain(
        _ plan: (forward: Int, backward: Int), retrying: (any Error, Int) -> Void
    ) async throws -> _PageChain<Entity> {
        guard let _pages else { return _PageChain(request: try await retry.run(request, retrying: retrying)) }
        return try await _pages.loadChain(forward: plan.forward, backward: plan.backward) { cursor in
            try await retry.run({ try await _pages.load(cursor) }, retrying: retrying)
        }
    }
}
