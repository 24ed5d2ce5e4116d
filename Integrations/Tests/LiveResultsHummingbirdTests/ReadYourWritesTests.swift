import Foundation
import LiveResultsPostgres
import LiveResultsTestSupport
import NIOHTTP1
import PostgresNIO
import Testing
import TodoServer

/// Read-your-writes: a PostgREST `GET` of a live query answers with every change committed before it, however the
/// store learns of changes, as PostgREST does (its clients count on it). Each write goes through SQL and the `GET`
/// follows at once, with no wait between them.
@Suite("Read-your-writes: a GET answers what was committed before it", .timeLimit(.minutes(5)))
struct ReadYourWritesTests {
    /// The ids (and titles, priorities) a `GET` answered, in order.
    private static func rows(_ server: RoutedServer, _ path: String) async throws -> [(Int64, String, Int)] {
        let reply = try await server.send(.GET, path)
        guard reply.status == 200, let rows = try JSONSerialization.jsonObject(with: reply.body) as? [[String: Any]]
        else { throw TestFailure("GET \(path): \(reply.status) \(reply.text)") }
        return rows.map {
            (($0["id"] as? NSNumber)?.int64Value ?? -1, $0["title"] as? String ?? "", $0["priority"] as? Int ?? -1)
        }
    }

    @Test(
        "SQL writes, then an immediate GET of a held query: each answer holds the write",
        arguments: PostgresTodoStore.Changes.allCases)
    func getAfterWrite(changes: PostgresTodoStore.Changes) async throws {
        // A cluster of its own: each GET waits for the feed, which a busy shared cluster slows past the query timeout.
        try await PostgresTestServer(cluster: try TemporaryPostgres()).withDatabase { client, configuration in
            let store = try await PostgresTodoStore(
                client: client, changes: changes,
                replication: changes == .wal ? PostgresTestServer.connectionConfiguration(configuration) : nil)
            try await RoutedServer.with(store) { server in
                let plain = "/todos?project=eq.Home&order=id.asc&select=id,title,priority"
                let embedded = "/todos?project=eq.Home&order=id.asc&select=id,title,priority,assignee:people(name)"
                // Held: the first GET of each fetches its query, which the registry keeps live.
                #expect(try await Self.rows(server, plain).isEmpty)
                #expect(try await Self.rows(server, embedded).isEmpty)
                var ids: [Int64] = []
                for round in 0..<60 {
                    let path = round.isMultiple(of: 3) ? embedded : plain
                    let inserted = try await client.query(
                        "INSERT INTO todos (title, project, priority) VALUES (\("r\(round)"), 'Home', 1) RETURNING id"
                    ).collect().first?.decode(Int64.self)
                    let id = try #require(inserted)
                    ids.append(id)
                    #expect(try await Self.rows(server, path).map(\.0) == ids, "\(changes) insert round \(round)")
                }
                for (round, id) in ids.enumerated() {
                    let path = round.isMultiple(of: 3) ? embedded : plain
                    try await client.query("UPDATE todos SET priority = \(round + 100) WHERE id = \(id)")
                    #expect(
                        try await Self.rows(server, path).first { $0.0 == id }?.2 == round + 100,
                        "\(changes) update round \(round)")
                }
                for (round, id) in ids.enumerated() {
                    let path = round.isMultiple(of: 3) ? embedded : plain
                    try await client.query("DELETE FROM todos WHERE id = \(id)")
                    #expect(
                        try await Self.rows(server, path).map(\.0) == Array(ids[(round + 1)...]),
                        "\(changes) delete round \(round)")
                }
            }
        }
    }
}
