/// Something a ``FetchedResultsController`` noticed and handled without failing: reported to the
/// `diagnostics` handler given at initialization and counted in ``ControllerStatistics``.
///
/// Wire it to your logger:
///
/// ```swift
/// let controller = FetchedResultsController(definition: definition, diagnostics: { logger.warning("\($0)") })
/// ```
public enum ControllerDiagnostic<Entity: FetchableEntity>: Sendable {
    /// Events arrived before the first fetch or after a reset, and were ignored.
    case eventsIgnored(count: Int)
    /// An event source could not decode an event; the other events of its batch were applied.
    case malformedEvent(any Error)
    /// The fetch result held these ids more than once; the first occurrence of each was kept.
    case duplicateIDsInFetchResult([Entity.ID])
    /// A fetch threw; what was shown stays shown.
    case fetchFailed(any Error)
    /// An `AsyncSequence` event source threw and ended; its subscription is over.
    case sourceFailed(any Error)
    /// An association's batch request threw. The entities it was for stay without a value, and the
    /// association pauses its requests for its ``AssociationBackoff``.
    case associationFailed(any Error)
    /// A page request threw. What was shown stays; the cursor stays too, so the same page can be loaded
    /// again (see ``FetchedResultsController/loadNextPage()``).
    case pageFailed(any Error)
    /// A page arrived after a ``FetchedResultsController/reset()`` or after a fetch started, and was
    /// dropped: the pages shown come from a newer fetch.
    case pageDropped
    /// A fetch or page request threw, and is tried again as the definition's ``RetryPolicy`` says;
    /// `attempt` is the number of the attempt to come.
    case requestRetried(any Error, attempt: Int)
    /// The definition's saved results could not be read or decoded (a damaged, unreadable or
    /// other-version file, or entities of another shape); the fetch went on without them, and its save
    /// replaces them.
    case cacheLoadFailed(any Error)
    /// The results could not be saved to the definition's cache; the fetch or page load succeeded anyway.
    case cacheSaveFailed(any Error)
}

/// Counters of what a ``FetchedResultsController`` dropped or survived.
public struct ControllerStatistics: Sendable, Hashable {
    /// Events ignored because they arrived before the first fetch or after a reset.
    public var ignoredEvents = 0
    /// Events a source reported as malformed.
    public var malformedEvents = 0
    /// Repeated ids dropped from fetch results.
    public var duplicateFetchedIDs = 0
    /// Fetches that threw.
    public var failedFetches = 0
    /// `AsyncSequence` sources that threw.
    public var failedSources = 0
    /// Association requests that threw.
    public var failedAssociationRequests = 0
    /// Page requests that threw.
    public var failedPages = 0
    /// Pages dropped because they arrived after a reset or after a fetch started.
    public var droppedPages = 0
    /// Fetch and page requests tried again after they threw.
    public var retriedRequests = 0
    /// Saved results that could not be read or decoded.
    public var failedCacheLoads = 0
    /// Saves to the definition's cache that failed.
    public var failedCacheSaves = 0
    /// Times an update stream's consumer fell behind by more than its buffer, and what it had not read
    /// was replaced by one catch-up update (see ``FetchedResultsController/updates(since:bufferLimit:)``).
    public var collapsedUpdateBacklogs = 0

    /// Creates zeroed counters.
    @inlinable public init() {}
}
