import Foundation
import HTTPTypes
import LiveResults
import LiveResultsServing
import NIOConcurrencyHelpers
import NIOCore
import NIOFoundationCompat
import Testing

/// The core's routes without a framework or a socket: what each adapter hands a request to.
@Suite("The core's routes", .timeLimit(.minutes(1)))
struct LiveRoutesTests {
    /// A controller of three rows, fetched.
    static func controller() async throws -> FetchedResultsController<Row> {
        let rows = [
            Row(id: 1, title: "milk", project: "Home", priority: 1),
            Row(id: 2, title: "mail", project: "Work", priority: 2),
            Row(id: 3, title: "mop", project: "Home", priority: 3),
        ]
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { rows }), sortDescriptors: [SortDescriptor(\Row.id)])
        try await controller.performFetch()
        return controller
    }

    /// The sending side of a WebSocket, recorded.
    final class Outbound: _WebSocketOutbound {
        let texts = NIOLockedValueBox<[String]>([])
        let closes = NIOLockedValueBox<[Int]>([])

        func send(text: ByteBuffer) async throws { texts.withLockedValue { $0.append(String(buffer: text)) } }
        func close(code: Int, reason: String) async throws { closes.withLockedValue { $0.append(code) } }
    }

    @Test("GET path: the whole results with their version as the entity tag; If-None-Match of it is 304")
    func wholeResults() async throws {
        let controller = try await Self.controller()
        let routes = _LiveRoutes(controller: controller, options: LiveResultsOptions())
        let response = try await routes.results(LiveResultsRequest(headers: [:], query: nil))
        #expect(response.status == .ok)
        let tag = "\"\(controller.version)\""
        #expect(response.headers[.eTag] == tag)
        let body = try #require(response.body)
        let update = try JSONDecoder().decode(ResultsUpdate<Row>.self, from: Data(buffer: body))
        #expect(update.version == controller.version)
        var headers = HTTPFields()
        headers[.ifNoneMatch] = "\"other\", \(tag)"
        let unchanged = try await routes.results(LiveResultsRequest(headers: headers, query: nil))
        #expect(unchanged.status == .notModified)
        #expect(unchanged.body == nil)
    }

    @Test("a full route refuses a stream and counts it; a bad window is a plain 400")
    func refusals() async throws {
        let routes = _LiveRoutes(
            controller: try await Self.controller(), options: LiveResultsOptions(maximumStreams: 0))
        do {
            _ = try await routes.events(LiveResultsRequest(headers: [:], query: nil), channel: nil)
            Issue.record("a stream opened on a full route")
        } catch let refusal as LiveResultsRefusal {
            #expect(refusal.status == .serviceUnavailable)
            #expect(refusal.response.headers[.retryAfter] == "1")
        }
        #expect(routes.endpoint.refusedStreams == 1)
        do {
            _ = try await routes.results(LiveResultsRequest(headers: [:], query: "limit=-1"))
            Issue.record("a negative limit was served")
        } catch LiveResultsRefusal.message(let status, let message) {
            #expect(status == .badRequest)
            #expect(message == "limit must be a non-negative integer")
        }
    }

    @Test("Server-Sent Events: retry:, the whole results, then nothing more once the endpoint shuts its streams")
    func serverSentEvents() async throws {
        let routes = _LiveRoutes(controller: try await Self.controller(), options: LiveResultsOptions())
        let stream = try await routes.events(LiveResultsRequest(headers: [:], query: "limit=2"), channel: nil)
        #expect(stream.headers[.contentType] == "text/event-stream")
        #expect(routes.endpoint.openStreams == 1)
        let chunks = NIOLockedValueBox<[String]>([])
        let body = Task {
            try await stream.body { chunk in chunks.withLockedValue { $0.append(String(buffer: chunk)) } }
        }
        #expect(await Self.eventually { chunks.withLockedValue { $0.count } == 2 })
        await routes.endpoint.shutDownStreams()
        try await body.value
        let written = chunks.withLockedValue { $0 }
        #expect(written.first == "retry: 1000\n\n")
        #expect(written.last?.hasPrefix("id: ") == true)
        #expect(written.last?.hasSuffix("\n\n") == true)
        #expect(routes.endpoint.openStreams == 0)
    }

    @Test("WebSocket: the whole results, then a client's message closes with 1008; no slot closes with 1013")
    func webSocket() async throws {
        let routes = _LiveRoutes(controller: try await Self.controller(), options: LiveResultsOptions())
        var headers = HTTPFields()
        headers[.upgrade] = "websocket"
        let request = LiveResultsRequest(headers: headers, query: nil)
        try await routes.checkWebSocket(request)
        await #expect(throws: LiveResultsRefusal.self) {
            try await routes.checkWebSocket(LiveResultsRequest(headers: [:], query: nil))
        }
        let outbound = Outbound()
        let (inbound, client) = AsyncStream<Void>.makeStream()
        let served = Task { try await routes.serveWebSocket(request, inbound: inbound, outbound: outbound) }
        #expect(await Self.eventually { outbound.texts.withLockedValue { $0.count } == 1 })
        client.yield()
        try await served.value
        #expect(outbound.closes.withLockedValue { $0 } == [1008])
        #expect(routes.endpoint.openStreams == 0)

        let full = _LiveRoutes(controller: try await Self.controller(), options: LiveResultsOptions(maximumStreams: 0))
        let refused = Outbound()
        try await full.serveWebSocket(request, inbound: AsyncStream<Void> { $0.finish() }, outbound: refused)
        #expect(refused.closes.withLockedValue { $0 } == [1013])
        #expect(refused.texts.withLockedValue { $0 }.isEmpty)
    }

    /// Whether `condition` holds within 10 seconds, looking every 10 milliseconds.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        for _ in 0..<1_000 {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return condition()
    }
}
