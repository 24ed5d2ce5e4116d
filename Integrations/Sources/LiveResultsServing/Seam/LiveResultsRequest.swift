import Foundation
import HTTPTypes
import LiveResults

/// A request of a live route as a framework adapter hands it to the serving core: its headers, its URI's query,
/// and the conditions of the caller, asked only when the request gets that far.
package struct LiveResultsRequest: Sendable {
    /// The request's headers.
    package var headers: HTTPFields
    /// The URI's query, after the `?`, still percent-encoded; `nil` for none.
    package var query: String?
    /// The filters ANDed into the request's live query (an adapter runs its `authorize` here); none by default.
    /// Called where the request's source is resolved, after the cheaper refusals (a full route), as often as it
    /// is resolved.
    package var conditions: @Sendable () async throws -> [LiveQueryFilter]

    /// A request of these parts.
    ///
    /// - Complexity: O(1).
    package init(
        headers: HTTPFields, query: String?,
        conditions: @escaping @Sendable () async throws -> [LiveQueryFilter] = { [] }
    ) {
        self.headers = headers
        self.query = query
        self.conditions = conditions
    }

    /// The first value of the query parameter `name`, percent-decoded (a `+` stays a `+`): as routers read
    /// `?limit=`, `?offset=` and `?since=`. PostgREST's parameters are read with
    /// `PostgRESTQuery.parameters(fromQuery:)` instead.
    ///
    /// - Complexity: O(*m*) for *m* characters of the query.
    package func queryValue(_ name: String) -> String? {
        guard let query else { return nil }
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts[0] == name else { continue }
            guard parts.count > 1 else { return "" }
            return parts[1].removingPercentEncoding ?? String(parts[1])
        }
        return nil
    }
}
