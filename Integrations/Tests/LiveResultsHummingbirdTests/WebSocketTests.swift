import Foundation
import HummingbirdWSClient
import LiveResults
import LiveResultsHummingbird
import LiveResultsTestSupport
import Logging
import NIOHTTP1
import NIOWebSocket
import Testing
import TodoServer

/// Replicas fed by the server example's WebSocket route. The route's wire behaviour (resuming, close codes, a plain
/// `GET`, the shutdown) is `WebSocketWireTests`', against every adapter. The replica here is written to through the
/// example's REST writes, which only its Hummingbird server has.
@Suite("WebSocket", .timeLimit(.minutes(5)))
struct WebSocketTests {
    static let logger = Logger(label: "test-ws-client")

    /// The updates of a WebSocket connection to `url`, and how it was closed once it is.
    struct Connection: Sendable {
        let updates: AsyncThrowingStream<ResultsUpdate<Todo>, any Error>
        let closed: Task<WebSocketCloseFrame?, any Error>

        static func open(_ url: String, send message: String? = nil, maxFrameSize: Int = 1 << 16) -> Connection {
            let (updates, closed) = WebSocketTests.updates(
                of: Todo.self, at: url, send: message, maxFrameSize: maxFrameSize)
            return Connection(updates: updates, closed: closed)
        }
    }

    /// The updates of rows of `type` on a WebSocket connection to `url` (after sending `message`, if any), and
    /// how it was closed once it is; the client takes frames of up to `maxFrameSize` bytes.
    static func updates<Entity: FetchableEntity & Codable>(
        of type: Entity.Type, at url: String, send message: String? = nil, maxFrameSize: Int = 1 << 16
    ) -> (AsyncThrowingStream<ResultsUpdate<Entity>, any Error>, Task<WebSocketCloseFrame?, any Error>) {
        let (updates, continuation) = AsyncThrowingStream<ResultsUpdate<Entity>, any Error>.makeStream()
        let closed = Task {
            var configuration = WebSocketClientConfiguration()
            configuration.maxFrameSize = maxFrameSize
            defer { continuation.finish() }
            return try await WebSocketClient.connect(url: url, configuration: configuration, logger: logger) {
                inbound, outbound, _ in
                if let message { try await outbound.write(.text(message)) }
                for try await message in inbound.messages(maxSize: 64 << 20) {
                    guard case .text(let text) = message else { continue }
                    continuation.yield(try JSONDecoder().decode(ResultsUpdate<Entity>.self, from: Data(text.utf8)))
                }
            }
        }
        return (updates, closed)
    }

    @Test("a replica over WebSocket equals the controller after randomized writes through the API")
    func replicaFollowsRandomWrites() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let connection = Connection.open("ws://127.0.0.1:\(server.port)/todos/updates?sections=project")
            let follower = Follower(connection.updates)
            var random = SeededRandom(seed: 11)
            var ids: [Int64] = []
            for _ in 0..<120 { try await RandomWrites.step(server, ids: &ids, random: &random) }
            #expect(await follower.reach(try await server.servedVersion()), "\(follower.failure ?? "")")
            #expect(Array(follower.replica.fetchedObjects) == Array(server.controller.fetchedObjects))
            #expect(follower.bases.first == .some(nil))
            connection.closed.cancel()
        }
    }

    @Test("an update larger than a frame arrives whole, in frames a client's default limit takes")
    func largeUpdateInFrames() async throws {
        let todos = (1...400).map {
            Todo(id: Int64($0), title: "to-do \($0) " + String(repeating: "x", count: 60), project: "P", priority: 1)
        }
        try await RunningServer.with(try await MemoryTodoStore(todos)) { server in
            // Hummingbird's client refuses a frame past its `maxFrameSize`, 16 KiB by default; the whole results
            // are about 40 KiB.
            let connection = Connection.open(
                "ws://127.0.0.1:\(server.port)/todos/updates", maxFrameSize: WebSocketClientConfiguration().maxFrameSize
            )
            var updates = connection.updates.makeAsyncIterator()
            let first = try #require(try await updates.next())
            guard case .results(let sections) = first.content else {
                Issue.record("the first update is not whole results")
                return
            }
            #expect(sections.flatMap(\.entities).sorted { $0.id < $1.id } == todos)
            connection.closed.cancel()
        }
    }
}
