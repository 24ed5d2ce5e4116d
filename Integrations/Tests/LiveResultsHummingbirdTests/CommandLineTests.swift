import ArgumentParser
import Testing
import TodoServer

/// The server example's command line, in this process: `TodoOptions` as swift-argument-parser reads it, and
/// the `Configuration` it makes with the environment.
@Suite("Server command line")
struct CommandLineTests {
    /// The configuration `arguments` and `environment` ask for.
    static func configuration(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws -> TodoServer.Configuration {
        try TodoOptions.parse(arguments).configuration(environment: environment)
    }

    /// The message and exit code swift-argument-parser gives for the refusal of `arguments` and `environment`.
    static func refusal(
        _ arguments: [String], environment: [String: String] = [:]
    ) -> (message: String, exitCode: Int32)? {
        do {
            _ = try configuration(arguments, environment: environment)
            return nil
        } catch {
            return (TodoOptions.message(for: error), TodoOptions.exitCode(for: error).rawValue)
        }
    }

    @Test("no options: the configuration's defaults")
    func defaults() throws {
        #expect(try Self.configuration([]) == TodoServer.Configuration())
    }

    @Test("every option sets its field")
    func everyOption() throws {
        let configuration = try Self.configuration([
            "--port", "0", "--host", "0.0.0.0", "--postgres", "postgres://me@db/todos", "--changes", "wal-sql",
            "--query-timeout", "2.5", "--shutdown-timeout", "0.001", "--idle-timeout", "86400",
            "--allow-host", "a.example", "--allow-host", "b.example", "--allow-origin", "http://c.example:8080",
            "--allow-origin", "http://d.example", "--allow-origin", "http://c.example:8080",
            "--maximum-limit", "20", "--maximum-queries", "3", "--maximum-streams", "1",
        ])
        var expected = TodoServer.Configuration(
            host: "0.0.0.0", port: 0, postgresURL: "postgres://me@db/todos", changes: .walSQL)
        expected.queryTimeout = .milliseconds(2_500)
        expected.shutdownTimeout = .milliseconds(1)
        expected.idleTimeout = .seconds(86_400)
        expected.allowedHosts = ["a.example", "b.example"]
        expected.allowedOrigins = ["http://c.example:8080", "http://d.example"]
        expected.maximumLimit = 20
        expected.maximumLiveQueries = 3
        expected.maximumStreams = 1
        #expect(configuration == expected)
        // The `--name=value` form too.
        #expect(try Self.configuration(["--port=9000", "--changes=notify"]).port == 9_000)
    }

    @Test("PORT, HOST and DATABASE_URL fill in what the options leave out; an option wins; empty is none")
    func environment() throws {
        let environment = ["PORT": "9001", "HOST": "::1", "DATABASE_URL": "postgres://env@db/todos"]
        let fromEnvironment = try Self.configuration(["--changes", "wal"], environment: environment)
        #expect(fromEnvironment.port == 9_001 && fromEnvironment.host == "::1")
        #expect(fromEnvironment.postgresURL == "postgres://env@db/todos" && fromEnvironment.changes == .wal)
        let given = try Self.configuration(
            ["--port", "1", "--host", "127.0.0.2", "--postgres", "postgres://flag@db/todos"], environment: environment)
        #expect(given.port == 1 && given.host == "127.0.0.2" && given.postgresURL == "postgres://flag@db/todos")
        let empty = try Self.configuration([], environment: ["PORT": "", "HOST": "", "DATABASE_URL": ""])
        #expect(empty == TodoServer.Configuration())
    }

    @Test(
        "a refused option or value: ArgumentParser's message and exit code 64",
        arguments: [
            (["--port", "65536"], "--port wants a number from 0 to 65535, not 65536"),
            (["--port", "eighty"], "The value 'eighty' is invalid for '--port <port>'"),
            (
                ["--query-timeout", "0.0001"],
                "--query-timeout wants a number of seconds from 0.001 to 86400, not 0.0001"
            ),
            (["--shutdown-timeout", "0"], "--shutdown-timeout wants a number of seconds from 0.001 to 86400, not 0"),
            (["--idle-timeout", "86401"], "--idle-timeout wants a number of seconds from 0.001 to 86400, not 86401"),
            (["--idle-timeout", "soon"], "The value 'soon' is invalid for '--idle-timeout <seconds>'"),
            (["--maximum-limit", "0"], "--maximum-limit wants a whole number above 0, not 0"),
            (["--maximum-queries", "0"], "--maximum-queries wants a whole number above 0, not 0"),
            (["--maximum-streams", "0"], "--maximum-streams wants a whole number above 0, not 0"),
            (["--changes", "trigger"], "The value 'trigger' is invalid for '--changes <notify|wal|wal-sql>'"),
            (["--changes", "wal"], "--changes wal needs --postgres"),
            (["--host"], "Missing value for '--host <address>'"),
            (["--colour", "blue"], "Unknown option '--colour'"),
        ])
    func refused(arguments: [String], message: String) throws {
        let refusal = try #require(Self.refusal(arguments), "\(arguments) is refused")
        #expect(refusal.message.hasPrefix(message), "\(refusal.message)")
        #expect(refusal.exitCode == 64)
    }

    @Test("a PORT that is not a port is refused, even beside --port; --changes wal with DATABASE_URL is not")
    func refusedEnvironment() throws {
        let refusal = try #require(Self.refusal(["--port", "8080"], environment: ["PORT": "http"]))
        #expect(refusal.message == "PORT wants a number from 0 to 65535, not http")
        #expect(refusal.exitCode == 64)
        #expect(Self.refusal(["--changes", "wal"], environment: ["DATABASE_URL": "postgres://me@db/todos"]) == nil)
    }

    @Test("--help lists every option with its help and default")
    func help() {
        let help = TodoOptions.helpMessage(columns: 200)
        for option in [
            "--port", "--host", "--postgres", "--changes", "--query-timeout", "--shutdown-timeout", "--idle-timeout",
            "--allow-host", "--allow-origin", "--maximum-limit", "--maximum-queries", "--maximum-streams", "--help",
        ] {
            #expect(help.contains(option), "\(option) in \(help)")
        }
        #expect(help.contains("$DATABASE_URL"))
        #expect(help.contains("(default: 500)"))
        #expect(help.contains("(default: 10)"))
    }
}
