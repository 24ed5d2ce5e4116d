import NIOCore

/// Live routes whatever rows they stream: the routes of a query's embedded rows, behind the routes of its
/// rows (see `_LiveRoutes`).
package protocol _AnyLiveRoutes: Sendable {
    /// `GET path`.
    func results(_ request: LiveResultsRequest) async throws -> LiveResultsResponse
    /// `GET path/events`.
    func events(_ request: LiveResultsRequest, channel: (any Channel)?) async throws -> LiveResultsStreamResponse
    /// `GET path/updates` before the upgrade.
    func checkWebSocket(_ request: LiveResultsRequest) async throws
    /// `GET path/updates` after the upgrade.
    func serveWebSocket(
        _ request: LiveResultsRequest, inbound: some AsyncSequence, outbound: some _WebSocketOutbound
    ) async throws
}
