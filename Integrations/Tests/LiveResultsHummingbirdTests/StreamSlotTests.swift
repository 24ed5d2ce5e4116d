import Foundation
import LiveResultsHummingbird
import LiveResultsTestSupport
import Testing
import TodoServer

/// Stream slots of clients that went away come back at once, not at the next heartbeat: a reconnect storm
/// after a network blip is served. `LIVERESULTS_SLOT_STREAMS` sets the number of streams (1,000 by
/// default, the default `maximumStreams`; lower it when the file-descriptor limit is below about 4,500).
///
/// Hummingbird only: it sees a client's FIN as it comes, while Vapor gives a route no connection to watch, so
/// there a departed client's slot comes back at its stream's next write (a heartbeat), which this bound excludes.
/// Both adapters free the slot of a client that goes away (`ServerSentEventsWireTests`).
@Suite("Stream slots", .serialized, .timeLimit(.minutes(10)))
struct StreamSlotTests {
    static var count: Int {
        ProcessInfo.processInfo.environment["LIVERESULTS_SLOT_STREAMS"].flatMap { Int($0) } ?? 1_000
    }

    @Test("all the streams closed by their clients free their slots within 2 s; as many new ones are all accepted")
    func closedStreamsFreeTheirSlots() async throws {
        let count = Self.count
        var options = LiveResultsOptions()
        options.maximumStreams = count
        // The default heartbeat (15 s): the slots must not wait for it.
        try await RunningServer.with(try await MemoryTodoStore(), options: options) { server in
            var clients = try await Self.open(count, port: server.port)
            #expect(clients.statuses == [200: count])
            #expect(await eventually { server.endpoint.openStreams == count })
            clients.sockets.removeAll()  // closes them
            let closed = ContinuousClock.now
            // Each slot comes back as soon as the server reads its client's FIN, not at a heartbeat 15 s away.
            #expect(await eventually(timeout: .seconds(2)) { server.endpoint.openStreams == 0 })
            let freed = closed.duration(to: .now)
            let again = try await Self.open(count, port: server.port)
            let took = closed.duration(to: .now)
            #expect(again.statuses == [200: count], "statuses after the first streams closed")
            print("StreamSlotTests: \(count) slots freed after \(freed); \(count) new streams accepted after \(took)")
        }
    }

    /// Opens `count` event streams on raw sockets and waits for each one's status line (at most 30 s).
    static func open(_ count: Int, port: Int) async throws -> (sockets: [RawSocket], statuses: [Int: Int]) {
        var sockets: [RawSocket] = []
        for _ in 0..<count {
            let socket = try RawSocket(port: port, receiveBuffer: 65_536)
            try socket.send("GET /todos/events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
            sockets.append(socket)
        }
        var received = [[UInt8]](repeating: [], count: count)
        var statuses: [Int?] = Array(repeating: nil, count: count)
        await eventually(timeout: .seconds(30)) {
            for index in sockets.indices where statuses[index] == nil {
                received[index] += sockets[index].readAvailable() ?? []
                let text = String(decoding: received[index].prefix(12), as: UTF8.self)
                if text.count == 12 { statuses[index] = Int(text.dropFirst(9)) ?? -1 }
            }
            return !statuses.contains(nil)
        }
        return (sockets, Dictionary(statuses.map { ($0 ?? 0, 1) }, uniquingKeysWith: +))
    }
}
