import AsyncHTTPClient
import Foundation
import LiveResults
import NIOCore
import TodoServer

/// A Server-Sent Events client: the events of one `GET …/events` response, parsed.
struct EventStream: Sendable {
    /// One event: its `id:`, `event:` (`nil` for an update) and `data:`.
    struct Event: Sendable {
        var id: String?
        var name: String?
        var data: String

        func update() throws -> ResultsUpdate<Todo> {
            try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(data.utf8))
        }
    }

    let status: Int
    let contentType: String?
    let events: AsyncThrowingStream<Event, any Error>

    /// Opens `url`, reading its events in a task that ends when the stream ends or the returned stream
    /// is released.
    static func open(_ url: String, lastEventID: String? = nil) async throws -> EventStream {
        var request = HTTPClientRequest(url: url)
        if let lastEventID { request.headers.add(name: "Last-Event-ID", value: lastEventID) }
        let response = try await HTTPClient.shared.execute(request, timeout: .hours(1))
        let (events, continuation) = AsyncThrowingStream<Event, any Error>.makeStream()
        let reader = Task {
            var parser = Parser()
            do {
                for try await buffer in response.body {
                    for event in parser.feed(buffer) { continuation.yield(event) }
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

    /// Splits bytes into events at blank lines; skips comments and `retry:`.
    struct Parser {
        private var pending = ""

        mutating func feed(_ buffer: ByteBuffer) -> [Event] {
            pending += String(buffer: buffer)
            var events: [Event] = []
            while let end = pending.range(of: "\n\n") {
                let block = pending[..<end.lowerBound]
                pending = String(pending[end.upperBound...])
                var event = Event(id: nil, data: "")
                var hasData = false
                for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                    if line.hasPrefix("id: ") { event.id = String(line.dropFirst(4)) }
                    if line.hasPrefix("event: ") { event.name = String(line.dropFirst(7)) }
                    if line.hasPrefix("data: ") {
                        event.data += String(line.dropFirst(6))
                        hasData = true
                    }
                }
                if hasData { events.append(event) }
            }
            return events
        }
    }
}
