import AsyncHTTPClient
import Foundation
import LiveResults
import LiveResultsWireSupport
import NIOCore
import NIOHTTP1
import TodoServer

/// A Server-Sent Events client: the events of one `GET …/events` response, parsed.
struct EventStream: Sendable {
    /// One event: its `id:`, `event:` (`nil` for an update) and `data:`.
    typealias Event = ServerSentEvent

    let status: Int
    let contentType: String?
    let events: AsyncThrowingStream<Event, any Error>

    /// Opens `url` (with `headers`), reading its events in a task that ends when the stream ends or the returned
    /// stream is released.
    static func open(
        _ url: String, lastEventID: String? = nil, headers: [(String, String)] = []
    ) async throws -> EventStream {
        var request = HTTPClientRequest(url: url)
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
        let (events, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        let reader = Task {
            var parser = ServerSentEventParser()
            do {
                for try await buffer in response.body {
                    for event in try parser.feed(Data(buffer.readableBytesView)) { continuation.yield(event) }
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return EventStream(
            status: Int(response.status.code), contentType: response.headers.first(name: "content-type"),
            events: events)
    }
}

extension ServerSentEvent {
    /// The update that an event of the server's results stream carries.
    func update() throws -> ResultsUpdate<Todo> {
        try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(data.utf8))
    }
}
