import HTTPTypes
import NIOCore

/// A streamed answer of a live route (Server-Sent Events): its head, and the body an adapter runs with a function
/// that writes each chunk to the client, in order, waiting for the client to take it.
package struct LiveResultsStreamResponse: Sendable {
    /// The headers of the `200` that starts the stream.
    package var headers: HTTPFields
    /// Writes the stream with `write` until it ends (the server shuts down, the client leaves, a write fails);
    /// the adapter then finishes the response. Holds the stream's slot until it returns.
    package let body: @Sendable (_ write: (ByteBuffer) async throws -> Void) async throws -> Void

    /// A stream of these parts.
    ///
    /// - Complexity: O(1).
    package init(
        headers: HTTPFields, body: @escaping @Sendable (_ write: (ByteBuffer) async throws -> Void) async throws -> Void
    ) {
        self.headers = headers
        self.body = body
    }
}
