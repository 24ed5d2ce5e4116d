import Foundation

/// Where the results a ``FetchedResultsController`` shows come from: see
/// ``FetchedResultsController/resultsOrigin``.
///
/// ```swift
/// switch controller.resultsOrigin {
/// case .none: showPlaceholder()
/// case .cache(let savedAt): showBanner("Saved \(savedAt.formatted())")
/// case .request: hideBanner()
/// }
/// ```
public enum ResultsOrigin: Sendable, Hashable {
    /// Nothing was shown yet, or the controller was reset.
    case none
    /// Results a ``ResultsCachePolicy`` saved at that date (live events since then are applied to them).
    case cache(savedAt: Date)
    /// The results of the definition's request (live events since then are applied to them).
    case request
}
