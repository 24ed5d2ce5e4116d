import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsHummingbird
import LiveResultsWireSupport
import NIOHTTP1
import Testing
import TodoServer

/// Replicas fed by the server example's Server-Sent Events route, as a browser or a Swift client reads it. The
/// route's wire behaviour against every adapter is `ServerSentEventsWireTests`' and `LiveQueryStreamsWireTests`'.
/// The replica here is written to through the example's REST writes, which only its Hummingbird server has.
@Suite("Server-Sent Events", .timeLimit(.minutes(5)))
struct ServerSentEventsTests {
    @Test("a replica over SSE equals the controller after randomized writes through the API")
    func replicaFollowsRandomWrites() async throws {
        try await RunningServer.with(try await MemoryTodoStore()) { server in
            let stream = try await EventStream.open("\(server.base)/todos/events?sections=project")
            #expect(stream.status == 200)
            #expect(stream.contentType == "text/event-stream")
            let follower = Follower(stream.updates)
            var random = SeededRandom(seed: 7)
            var ids: [Int64] = []
            for step in 0..<150 {
                try await RandomWrites.step(server, ids: &ids, random: &random)
                if step % 25 == 24 {
                    #expect(await follower.reach(try await server.servedVersion()), "\(follower.failure ?? "")")
                    #expect(Array(follower.replica.fetchedObjects) == Array(server.controller.fetchedObjects))
                }
            }
            #expect(await follower.reach(try await server.servedVersion()))
            #expect(follower.failure == nil)
            #expect(follower.bases.first == .some(nil), "the whole results first")
            #expect(follower.bases.dropFirst().allSatisfy { $0 != nil }, "then change sets only")
            let whole = try await HTTP.send(
                .GET, "\(server.base)/todos?sections=project", headers: [("Accept", "application/vnd.liveresults+json")]
            )
            .decode(ResultsUpdate<Todo>.self)
            #expect(whole.version == follower.replica.version)
            follower.stop()
        }
    }

    /// A server that never ends a line or an event must not fill its reader's memory.
    @Test("the parser refuses an event or a line over its maximum size; comments count toward no event")
    func parserBound() throws {
        var parser = ServerSentEventParser(maximumEventSize: 16)
        #expect(try parser.feed(Data(": heartbeat\n".utf8)).isEmpty)
        #expect(try parser.feed(Data("data: 0123456789\n\n".utf8)).map(\.data) == ["0123456789"])
        #expect(throws: ServerSentEventParser.EventTooLarge.self) {
            try parser.feed(Data("data: 01234\ndata: 56789\n".utf8))
        }
        var endless = ServerSentEventParser(maximumEventSize: 1_024)
        #expect(throws: ServerSentEventParser.EventTooLarge(maximumEventSize: 1_024)) {
            for _ in 0..<100 { _ = try endless.feed(Data(repeating: UInt8(ascii: "x"), count: 100)) }
        }
    }
}
