import Foundation
import LiveResults
import LiveResultsTestSupport
import NIOHTTP1
import PostgresNIO
import Testing
import TodoServer

/// Starting the server example as its own process: many at once, with a database that is not there, with
/// its settings in the environment.
@Suite("Server start", .serialized, .timeLimit(.minutes(10)))
struct StartTests {
    @Test(
        "four processes started at once on an empty database all start, without postgres-nio's warnings",
        arguments: ServerExecutable.allCases)
    func concurrentStart(executable: ServerExecutable) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { _, configuration in
            let url = postgres.url(database: configuration.database)
            let servers = try await withThrowingTaskGroup(of: ServerProcess.self) { group in
                for _ in 0..<4 {
                    group.addTask { try await ServerProcess(["--postgres", url], executable: executable) }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            for server in servers {
                let reply = try await HTTP.send(
                    .POST, "\(server.base)/todos", json: #"{"title": "a", "project": "P", "priority": 1}"#)
                #expect(reply.status == 201)
                #expect(await server.terminate() == 0)
                #expect(!server.printed.contains("hasn't been called yet"), "\(server.printed)")
            }
        }
    }

    @Test(
        "a database that does not exist: the start fails within the query timeout with PostgreSQL's reason, in one sentence",
        arguments: ServerExecutable.allCases)
    func missingDatabase(executable: ServerExecutable) async throws {
        let postgres = try PostgresTestServer.shared()
        let url =
            "postgres://\(postgres.username):\(postgres.password ?? "")@\(postgres.host):\(postgres.port)/no_such_db"
        let started = ContinuousClock.now
        await #expect {
            _ = try await ServerProcess(["--postgres", url, "--query-timeout", "5"], executable: executable)
        } throws: { error in
            let text = "\(error)"
            return text.contains(#"database "no_such_db" does not exist"#) && !text.contains("Generic description")
        }
        #expect(started.duration(to: .now) < .seconds(30))
    }

    @Test(
        "a --postgres that is not a URL is one readable sentence and exit status 1",
        arguments: ServerExecutable.allCases)
    func badURL(executable: ServerExecutable) async throws {
        let (status, output) = try Self.refusal(["--postgres", "localhost:5432"], executable: executable)
        #expect(status == 1)
        #expect(
            output.hasPrefix(
                "\(executable.rawValue): --postgres wants postgres://user[:password]@host[:port]/database, not localhost:5432\n"
            ))
    }

    /// Below a millisecond a timeout would round to none: every connection closed at once, every query timed out.
    @Test(
        "a timeout below a millisecond is refused with ArgumentParser's error, usage and exit status 64",
        arguments: ServerExecutable.allCases,
        [["--idle-timeout", "0.0001"], ["--query-timeout", "1e-9"], ["--shutdown-timeout", "0"]])
    func tooShortTimeout(executable: ServerExecutable, arguments: [String]) async throws {
        let (status, output) = try Self.refusal(arguments, executable: executable)
        #expect(status == 64)
        #expect(
            output.hasPrefix(
                "Error: \(arguments[0]) wants a number of seconds from 0.001 to 86400, not \(arguments[1])\n"))
        #expect(output.contains("Usage: \(executable.rawValue)"), "\(output)")
    }

    @Test(
        "--maximum-streams 2: two streams of /todos are served, a third gets 503; 0 is refused with usage, status 64",
        arguments: ServerExecutable.allCases)
    func maximumStreams(executable: ServerExecutable) async throws {
        let server = try await ServerProcess(["--maximum-streams", "2"], executable: executable)
        let streams = try await StreamSlotTests.open(3, port: server.port)
        #expect(streams.statuses == [200: 2, 503: 1])
        #expect(await server.terminate() == 0)
        let (status, output) = try Self.refusal(["--maximum-streams", "0"], executable: executable)
        #expect(status == 64)
        #expect(output.hasPrefix("Error: --maximum-streams wants a whole number above 0, not 0\n"))
    }

    @Test(
        "--help prints ArgumentParser's usage with every option, and exits 0; an unknown option exits 64",
        arguments: ServerExecutable.allCases)
    func help(executable: ServerExecutable) throws {
        let server = Process()
        server.executableURL = try executable.url
        server.arguments = ["--help"]
        let pipe = Pipe()
        server.standardOutput = pipe
        try server.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        #expect(server.terminationStatus == 0)
        #expect(output.contains("USAGE: \(executable.rawValue)"), "\(output)")
        for option in ["--port", "--postgres", "--changes", "--allow-origin", "--maximum-streams"] {
            #expect(output.contains(option), "\(option)")
        }
        let (status, refusal) = try Self.refusal(["--colour", "blue"], executable: executable)
        #expect(status == 64)
        #expect(refusal.hasPrefix("Error: Unknown option '--colour'"), "\(refusal)")
    }

    /// Runs `executable` with `arguments`, which it refuses: its exit status and what it wrote to standard error.
    static func refusal(
        _ arguments: [String], executable: ServerExecutable = .hummingbird
    ) throws -> (status: Int32, output: String) {
        let server = Process()
        server.executableURL = try executable.url
        server.arguments = arguments
        let pipe = Pipe()
        server.standardError = pipe
        try server.run()
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        server.waitUntilExit()
        return (server.terminationStatus, output)
    }

    @Test(
        "a connection that sends half a request head is closed after the idle timeout",
        arguments: ServerExecutable.allCases)
    func halfSentRequest(executable: ServerExecutable) async throws {
        let server = try await ServerProcess(["--idle-timeout", "1"], executable: executable)
        let socket = try RawSocket(port: server.port)
        try socket.send("GET / HTTP/1.1\r\nHo")
        let started = ContinuousClock.now
        #expect(await eventually(timeout: .seconds(10)) { socket.readAvailable() == nil })
        #expect(started.duration(to: .now) < .seconds(10))
        #expect(await server.terminate() == 0)
    }

    /// A stream being answered is not idle: quiet for three idle timeouts, a Server-Sent Events stream and a
    /// WebSocket (whose client answers pings) stay open, and carry the next write.
    @Test(
        "--idle-timeout 1: quiet streams stay open past it and carry the next write",
        arguments: ServerExecutable.allCases)
    func quietStreams(executable: ServerExecutable) async throws {
        let server = try await ServerProcess(["--idle-timeout", "1"], executable: executable)
        let events = Follower(try await EventStream.open("\(server.base)/todos/events").updates)
        let socket = WebSocketTests.Connection.open("ws://127.0.0.1:\(server.port)/todos/updates")
        let updates = Follower(socket.updates)
        #expect(await eventually { events.replica.version != nil && updates.replica.version != nil })
        // Quiet for three idle timeouts: a sleep is the point of the test.
        try await Task.sleep(for: .seconds(3))
        let reply = try await HTTP.send(
            .POST, "\(server.base)/todos", json: #"{"title": "late", "project": "P", "priority": 1}"#)
        #expect(reply.status == 201)
        #expect(await eventually { events.replica.fetchedObjects.map(\.title) == ["late"] }, "Server-Sent Events")
        #expect(await eventually { updates.replica.fetchedObjects.map(\.title) == ["late"] }, "WebSocket")
        events.stop()
        updates.stop()
        socket.closed.cancel()
        #expect(await server.terminate() == 0)
    }

    @Test(
        "SIGTERM while a request's body never ends: the server exits by its shutdown deadline",
        arguments: ServerExecutable.allCases)
    func shutdownDeadline(executable: ServerExecutable) async throws {
        let server = try await ServerProcess(
            ["--idle-timeout", "300", "--shutdown-timeout", "2"], executable: executable)
        let socket = try RawSocket(port: server.port)
        // A request in progress, which a graceful shutdown waits for: its body is 100 bytes, 4 are sent.
        try socket.send(
            "POST /todos HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"ti"
        )
        // The shutdown waits for it only once the server has read its head.
        #expect(await eventually { socket.serverHasRead(port: server.port) }, "the server read the request's head")
        let started = ContinuousClock.now
        let status = await server.terminate(within: .seconds(20))
        let took = started.duration(to: .now)
        #expect(status != nil, "the server exited; \(server.printed)")
        // The deadline (2 s), the cancellation's grace (2 s), and room for a loaded machine.
        #expect(took < .seconds(12))
        // Not sooner than the deadline: the shutdown waited for the request, which the deadline then ended.
        #expect(took >= .seconds(2), "the shutdown waited for the request in progress")
        print(
            "StartTests: \(executable): SIGTERM with a request in progress: exit \(status.map(String.init) ?? "none") after \(took)"
        )
        withExtendedLifetime(socket) {}
    }

    @Test("DATABASE_URL stands for --postgres", arguments: ServerExecutable.allCases)
    func environment(executable: ServerExecutable) async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { _, configuration in
            let url = postgres.url(database: configuration.database)
            let server = try await ServerProcess([], environment: ["DATABASE_URL": url], executable: executable)
            #expect(server.printed.contains("to-dos in PostgreSQL"))
            _ = try await HTTP.send(.GET, "\(server.base)/health")
            // One line per request, at info, with its status and duration.
            #expect(await eventually { server.printed.contains("GET /health 200") })
            #expect(server.printed.contains("duration_ms="))
            #expect(await server.terminate() == 0)
        }
    }
}
