import Foundation
import LiveResults
import LiveResultsTestSupport
import LiveResultsPostgres
import PostgresNIO
import NIOConcurrencyHelpers
import Testing

@Suite("PostgresLiveTable: bad input")
struct BadInputTests {
    @Test("A notification that is not JSON, lacks fields or names an unknown operation is reported, never fatal")
    func handMadeNotifications() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            let channel = live.table.channel
            for payload in [
                "not json", #"{"op":"insert"}"#, #"{"v":1,"tx":"1","n":1,"op":"explode","id":1}"#,
                #"{"v":1,"tx":"1","n":1,"op":"insert","id":"one","row":{"id":1}}"#,
                #"{"v":1,"tx":"1","n":2,"op":"insert","id":5,"row":{"id":5,"title":null}}"#,
                #"{"v":1,"tx":"1","n":3,"op":"update"}"#,
            ] {
                try await client.query("SELECT pg_notify(\(channel), \(payload))")
            }
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('after', 'A', 1)")
            #expect(try await eventually { try await live.matches(client) && live.shown.count == 1 })
            #expect(await eventually { live.controller.statistics.malformedEvents == 6 })
            #expect(live.checker.violations == [])
        }
    }

    @Test("A row that does not decode: live, a malformed event; fetched, a failed fetch that keeps the results")
    func undecodableRows() async throws {
        try await withDatabase { client, _ in
            // `title` may be NULL here, and `priority` is text: neither decodes into a Todo.
            try await client.query(
                "CREATE TABLE todos (id bigserial PRIMARY KEY, title text, project text NOT NULL, priority text NOT NULL)"
            )
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('fine', 'A', '1')")
            let diagnostics = DiagnosticLog()
            let table = PostgresLiveTable<Todo>(client: client, table: "todos")
            try await table.installTrigger()
            let controller = FetchedResultsController(
                definition: table.fetchDefinition(), sortDescriptors: Todo.sortDescriptors,
                diagnostics: { diagnostics.record($0) })
            let subscription = controller.observe(table)
            // "1" is a JSON string, not a number: the fetch fails with the row's id.
            await #expect(throws: PostgresLiveTableError.self) { try await controller.performFetch() }
            #expect(controller.state.error.map { "\($0)" }?.contains("with id 1") == true)
            try await client.query("ALTER TABLE todos ALTER COLUMN priority TYPE int USING priority::int")
            try await controller.performFetch()
            #expect(controller.fetchedObjects.count == 1)
            try await client.query("INSERT INTO todos (title, project, priority) VALUES (NULL, 'A', 3)")
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('ok', 'A', 4)")
            #expect(await eventually { controller.fetchedObjects.count == 2 })
            #expect(controller.statistics.malformedEvents == 1)
            #expect(diagnostics.malformed.first?.contains("does not decode") == true)
            subscription.cancel()
        }
    }

    @Test("Names with capitals, spaces and quotes are quoted identifiers")
    func quotedNames() async throws {
        try await withDatabase { client, _ in
            let schema = #"Sch "ema""#
            let table = #"My "Todo" Items; DROP TABLE x"#
            let id = #"Todo "ID""#
            let channel = #"Chan nel; NOTIFY x"#  // no double quote: postgres-nio's LISTEN cannot take one
            try await client.query(PostgresQuery(unsafeSQL: #"CREATE SCHEMA "Sch ""ema""""#))
            try await client.query(
                PostgresQuery(
                    unsafeSQL: #"""
                        CREATE TABLE "Sch ""ema"""."My ""Todo"" Items; DROP TABLE x" ("Todo ""ID""" bigserial PRIMARY KEY,
                        title text NOT NULL, project text NOT NULL, priority int NOT NULL, id bigint)
                        """#))
            let decoder = JSONDecoder()
            // The row's keys (below the payload's "row"): the id column is the entity's id, the column named
            // "id" is not.
            decoder.keyDecodingStrategy = .custom { keys in
                let key = keys.last!
                guard keys.count > 1 || key.stringValue != "row" else { return key }
                return key.stringValue == id ? _Key("id") : key.stringValue == "id" ? _Key("ignored") : key
            }
            let live = try await LiveTodos(
                client: client, table: table, idColumn: id, schema: schema, channel: channel, decoder: decoder)
            let quoted = #""Sch ""ema"""."My ""Todo"" Items; DROP TABLE x""#
            try await client.query(
                PostgresQuery(
                    unsafeSQL: "INSERT INTO \(quoted) (title, project, priority) VALUES ('a', 'A', 1), ('b', 'B', 2)"))
            try await client.query(
                PostgresQuery(unsafeSQL: #"UPDATE \#(quoted) SET priority = 0 WHERE "Todo ""ID""" = 2"#))
            #expect(await eventually { live.shown.map(\.id) == [1, 2] && live.shown.last?.priority == 0 })
            #expect(live.table.channel == channel)
            #expect(live.checker.violations == [])
        }
    }

    @Test("Names PostgreSQL would not keep as written are refused")
    func invalidNames() async throws {
        try await withDatabase { client, _ in
            let refused = [
                PostgresLiveTable<Todo>(client: client, table: ""),
                PostgresLiveTable<Todo>(client: client, table: String(repeating: "t", count: 64)),
                PostgresLiveTable<Todo>(client: client, table: "nul\u{0}"),
                PostgresLiveTable<Todo>(client: client, table: "todos", idColumn: ""),
                PostgresLiveTable<Todo>(client: client, table: "todos", channel: #"a "quoted" channel"#),
            ]
            for live in refused {
                await #expect(throws: PostgresLiveTableError.self) { try await live.installTrigger() }
                await #expect(throws: PostgresLiveTableError.self) { try await live.fetchDefinition().request() }
            }
        }
    }

    @Test("The table dropped while listening: the refetch fails with the server's message, the listener stays")
    func droppedTable() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('a', 'A', 1)")
            let live = try await LiveTodos(client: client)
            try await client.query("DROP TABLE todos")
            await #expect(throws: (any Error).self) { try await live.controller.performFetch() }
            let message = live.controller.state.error.map { String(reflecting: $0) } ?? ""
            #expect(message.contains("does not exist"))
            #expect(live.shown.count == 1)  // a failed fetch keeps what is shown
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            try await live.table.installTrigger()
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('b', 'B', 1)")
            // The new table's first row has id 1 again: an update of the row shown.
            #expect(await eventually { live.shown.map(\.title) == ["b"] })
            try await live.controller.performFetch()
            #expect(try await live.matches(client))
            #expect(live.log.failures == 0 && live.log.listens == 1)
        }
    }
}

/// A coding key made from a string.
struct _Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}

/// Records a controller's malformed-event diagnostics.
final class DiagnosticLog: Sendable {
    private let messages = NIOLockedValueBox<[String]>([])

    var malformed: [String] { messages.withLockedValue { $0 } }

    func record(_ diagnostic: ControllerDiagnostic<Todo>) {
        if case .malformedEvent(let error) = diagnostic { messages.withLockedValue { $0.append("\(error)") } }
    }
}
