import Foundation

/// What a ``FetchedResultsController`` shows: how to fetch the entities, and which of them to include.
///
/// ```swift
/// let definition = FetchDefinition<Post>(
///     request: { try await store.fetchPosts() },
///     isIncluded: { $0.isPublished }
/// )
/// ```
///
/// The inclusion rule applies to fetch results **and** to live events: an update that makes an entity
/// no longer included removes it, an update that makes it included inserts it.
public struct FetchDefinition<Entity: FetchableEntity>: Sendable {
    /// Fetches the full result. Called by every ``FetchedResultsController/performFetch()``.
    public typealias Request = @Sendable () async throws -> [Entity]

    /// Fetches the full result.
    public var request: Request

    /// Decides whether an entity is shown.
    public var isIncluded: @Sendable (Entity) -> Bool

    /// Creates a definition from a request and an optional inclusion rule.
    ///
    /// - Parameters:
    ///   - request: Fetches every entity; the order of its result is the insertion order that breaks
    ///     ties between entities the sort descriptors consider equal.
    ///   - isIncluded: Decides whether an entity is shown. Must not call back into the controller.
    @inlinable public init(
        request: @escaping Request,
        isIncluded: @escaping @Sendable (Entity) -> Bool = { _ in true }
    ) {
        self.request = request
        self.isIncluded = isIncluded
    }

    /// Creates a definition whose inclusion rule is a Foundation predicate.
    ///
    /// An entity for which the predicate throws is not included.
    ///
    /// ```swift
    /// FetchDefinition(request: fetchPosts, isIncluded: #Predicate<Post> { $0.score > 0 })
    /// ```
    @inlinable public init(request: @escaping Request, isIncluded predicate: Predicate<Entity>) {
        self.init(request: request, isIncluded: { (try? predicate.evaluate($0)) ?? false })
    }
}
