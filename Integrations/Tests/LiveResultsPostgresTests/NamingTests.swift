import LiveResultsPostgres
import PostgresNIO
import LiveResultsTestSupport
import Testing

@Suite("PostgresLiveTable: names of channels and triggers")
struct NamingTests {
    @Test("schema a with table b.c and schema a.b with table c get different default channels")
    func dottedNamesDoNotCollide() async throws {
        try await withDatabase { client, _ in
            let first = PostgresLiveTable<Todo>(client: client, table: "b.c", schema: "a")
            let second = PostgresLiveTable<Todo>(client: client, table: "c", schema: "a.b")
            #expect(first.channel != second.channel)
            let plain = PostgresLiveTable<Todo>(client: client, table: "b", schema: "a")
            #expect(plain.channel == "liveresults_a.b", "names without a dot stay readable")
            #expect(PostgresLiveTable<Todo>(client: client, table: "a.b").channel != plain.channel)
        }
    }

    @Test("one table named with and without public: one channel, and its triggers installed once")
    func publicIsTheDefaultSchema() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let bare = PostgresLiveTable<Todo>(client: client, table: "todos")
            let qualified = PostgresLiveTable<Todo>(client: client, table: "todos", schema: "public")
            #expect(bare.channel == qualified.channel)
            try await bare.installTrigger()
            try await qualified.installTrigger()
            let rows = try await client.query(
                "SELECT count(*)::int FROM pg_trigger WHERE tgrelid = 'public.todos'::regclass AND NOT tgisinternal")
            var count = 0
            for try await value in rows.decode(Int.self) { count = value }
            #expect(count == 3, "the row, send and truncate triggers, once")
        }
    }
}
