import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOHTTP1
import PostgresNIO
import Testing
import TodoServer

/// The server example as its own process: shut down by SIGTERM, and two of them on one PostgreSQL.
@Suite("Server processes", .serialized, .timeLimit(.minutes(10)))
struct ProcessTests {
    @Test(
        "SIGTERM with streams open ends the streams and the process, cleanly, within seconds",
        arguments: ServerExecutable.allCases)
    func sigtermWithOpenStreams(executable: ServerExecutable) async throws {
        let server = try await ServerProcess(executable: executable)
        var streams: [EventStream] = []
        for _ in 0..<3 { streams.append(try await EventStream.open("\(server.base)/todos/events")) }
        let started = ContinuousClock.now
        let status = await server.terminate()
        #expect(status == 0, "exit status; printed: \(server.printed)")
        #expect(started.duration(to: .now) < .seconds(20))
        for stream in streams {
            var events = stream.events.makeAsyncIterator()
            _ = try? await events.next()  // the whole results
            #expect((try? await events.next()) == nil, "the stream ended")
        }
    }

    /// Without the store's shutdown, the slot stayed behind the process, for another process's sweep to drop (15 s
    /// at least after its end), or for ever with none.
    @Test(
        "SIGTERM drops the server's temporary replication slot before the process exits (the WAL feed)",
        arguments: ServerExecutable.allCases)
    func sigtermDropsTheSlot(executable: ServerExecutable) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, configuration in
            let url = postgres.url(database: configuration.database)
            let server = try await ServerProcess(["--postgres", url, "--changes", "wal"], executable: executable)
            let slots: @Sendable () async throws -> [String] = {
                try await client.query(
                    "SELECT slot_name::text FROM pg_replication_slots WHERE database = current_database()"
                ).collect().map { try $0.decode(String.self) }
            }
            let prefix = "liveresults_tmp_\(server.process.processIdentifier)_"
            #expect(
                try await eventually { try await slots().contains { $0.hasPrefix(prefix) } },
                "the server's feed made its slot; printed: \(server.printed)")
            let status = await server.terminate()
            #expect(status == 0, "exit status; printed: \(server.printed)")
            // At the exit: no other process runs on this database, so no sweep could have dropped it.
            let left = try await slots()
            #expect(left.isEmpty, "slots left at the exit: \(left); printed: \(server.printed)")
        }
    }

    @Test(
        "two servers on one database: writes through either, or into the table, reach the clients of both",
        arguments: ServerExecutable.pairs)
    func twoProcessesOneDatabase(executables: [ServerExecutable]) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, configuration in
            let url = postgres.url(database: configuration.database)
            let first = try await ServerProcess(["--postgres", url], executable: executables[0])
            let second = try await ServerProcess(["--postgres", url], executable: executables[1])
            let followers = [
                Follower(try await EventStream.open("\(first.base)/todos/events?sections=project").updates),
                Follower(try await EventStream.open("\(second.base)/todos/events?sections=project").updates),
            ]
            var random = SeededRandom(seed: 5)
            for step in 0..<30 {
                let server = step.isMultiple(of: 2) ? first : second
                switch step % 3 {
                case 0, 1:
                    let project = RandomWrites.projects.randomElement(using: &random)!
                    let reply = try await HTTP.send(
                        .POST, "\(server.base)/todos",
                        json: #"{"title": "t\#(step)", "project": "\#(project)", "priority": \#(step % 4)}"#)
                    #expect(reply.status == 201)
                default:
                    // Straight into the table, as psql would.
                    try await client.query(
                        "UPDATE todos SET priority = priority + 1 WHERE id = (SELECT min(id) FROM todos)")
                    try await client.query(
                        "INSERT INTO todos (title, project, priority) VALUES (\("sql \(step)"), 'SQL', 1)")
                }
                if step % 10 == 9 {
                    let table = try await Self.select(client)
                    for follower in followers {
                        #expect(await eventually { Array(follower.replica.fetchedObjects) == table }, "step \(step)")
                    }
                    for server in [first, second] {
                        let whole = try await HTTP.send(
                            .GET, "\(server.base)/todos?sections=project",
                            headers: [("Accept", "application/vnd.liveresults+json")]
                        )
                        .decode(ResultsUpdate<Todo>.self)
                        let replica = ResultsReplica<Todo>()
                        _ = try replica.apply(whole)
                        #expect(Array(replica.fetchedObjects) == table)
                    }
                }
            }
            #expect(await first.terminate() == 0)
            #expect(await second.terminate() == 0)
        }
    }

    /// A client that follows a live query on one process reconnects, with the last version it read, to another
    /// process of the same database: that process's window of the query went through the same contents (both
    /// follow the write-ahead log in commit order), names its versions alike, and answers with one catch-up.
    @Test(
        "a client resumes a live query on another server process with one catch-up (the WAL feed)",
        arguments: ServerExecutable.pairs)
    func resumeOnAnotherProcess(executables: [ServerExecutable]) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, configuration in
            let url = postgres.url(database: configuration.database)
            let first = try await ServerProcess(["--postgres", url, "--changes", "wal"], executable: executables[0])
            let second = try await ServerProcess(["--postgres", url, "--changes", "wal"], executable: executables[1])
            let query = "project=eq.Home&order=priority.desc&limit=4"
            // Another client keeps the query live on the second process.
            let other = Follower(try await EventStream.open("\(second.base)/todos/events?\(query)").updates)
            let follower = Follower(try await EventStream.open("\(first.base)/todos/events?\(query)").updates)
            for step in 0..<6 {
                let server = step.isMultiple(of: 2) ? first : second
                let project = step == 3 ? "Work" : "Home"
                let reply = try await HTTP.send(
                    .POST, "\(server.base)/todos",
                    json: #"{"title": "t\#(step)", "project": "\#(project)", "priority": \#(step)}"#)
                #expect(reply.status == 201)
            }
            #expect(await eventually { follower.replica.fetchedObjects.map(\.priority) == [5, 4, 2, 1] })
            follower.stop()
            let version = try #require(follower.replica.version)
            // The same contents on the other process: the same version.
            #expect(await eventually { other.replica.version == version })
            _ = try await client.query("INSERT INTO todos (title, project, priority) VALUES ('sql', 'Home', 3)")
            #expect(await eventually { other.replica.fetchedObjects.map(\.priority) == [5, 4, 3, 2] })
            let resumed = try await EventStream.open(
                "\(second.base)/todos/events?\(query)", lastEventID: version.description)
            var events = resumed.events.makeAsyncIterator()
            let catchUp = try #require(try await events.next()).update()
            #expect(catchUp.base == version, "one catch-up, not the whole window")
            _ = try follower.replica.apply(catchUp)
            #expect(follower.replica.fetchedObjects.map(\.priority) == [5, 4, 3, 2])
            #expect(follower.replica.version == other.replica.version)
            other.stop()
            #expect(await first.terminate() == 0)
            #expect(await second.terminate() == 0)
        }
    }

    /// The table in the servers' order: project (as Swift compares strings, whatever the database's
    /// collation), priority, id.
    static func select(_ client: PostgresClient) async throws -> [Todo] {
        var todos: [Todo] = []
        let rows = try await client.query("SELECT id, title, project, priority FROM todos")
        for try await (id, title, project, priority) in rows.decode((Int64, String, String, Int32).self) {
            todos.append(Todo(id: id, title: title, project: project, priority: Int(priority)))
        }
        return todos.sorted { ($0.project, $0.priority, $0.id) < ($1.project, $1.priority, $1.id) }
    }
}
