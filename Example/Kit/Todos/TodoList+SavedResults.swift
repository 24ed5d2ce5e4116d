import Foundation
import LiveResults

extension TodoList {
    /// How long saved to-dos stay usable: a day. Older ones are not shown first; the list reads the
    /// store, and saves what it shows again.
    public static let savedResultsLifetime = Duration.seconds(24 * 60 * 60)

    /// The key the to-dos of a list with pages of `pageSize` are saved under: `todos-pages-of-20`.
    ///
    /// Saved to-dos come with the cursors of their pages, and a list continues from them: a list that
    /// reads pages of another size keeps its own.
    public static func savedResultsKey(pageSize: Int) -> String {
        "todos-pages-of-\(pageSize)"
    }

    /// Saves the to-dos a list shows in `store`, and shows them first, while it reads the store, in the
    /// next list's first fetch.
    static func cachePolicy(saving store: any ResultsStore, pageSize: Int, now: @escaping @Sendable () -> Date)
        -> ResultsCachePolicy
    {
        ResultsCachePolicy(
            key: savedResultsKey(pageSize: pageSize), store: store, expiry: .after(savedResultsLifetime),
            usage: .thenFetch, now: now)
    }

    /// The paginated definition of the list, whose cursor is the last stored id a page scanned (`nil`:
    /// the start), saved with `cache` if there is one.
    ///
    /// The general form, not `keyedPages(by: \.id, …)`: its pages stop at the first one with fewer
    /// entities than the limit, and a page that scans an unreadable value (such as the demo's older
    /// one) has fewer, although more to-dos follow it.
    static func definition(
        pageRequest: @escaping @Sendable (_ after: Int?) async throws -> Page<TodoItem, Int?>,
        associations: [any AssociationProtocol<TodoItem>],
        cache: ResultsCachePolicy?
    ) -> FetchDefinition<TodoItem> {
        guard let cache else {
            return FetchDefinition(firstPage: Int?.none, pageRequest: pageRequest, associations: associations)
        }
        return FetchDefinition(
            firstPage: Int?.none, pageRequest: pageRequest, associations: associations, cache: cache)
    }
}
