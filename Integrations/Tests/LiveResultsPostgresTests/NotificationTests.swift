import Foundation
import LiveResults
import LiveResultsTesting
import LiveResultsTestSupport
import LiveResultsWireSupport
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

@Suite("PostgresLiveTable: notification payloads")
struct NotificationTests {
    /// What a notification says, in a form that compares: ids and rows as JSON values, whatever their spelling.
    struct Reading: Equatable {
        var transaction: String
        var operation: String
        var endsTransaction: Bool
        var id: JSONValue?
        var row: Todo?

        init(_ notification: _Notification) throws {
            transaction = notification.transaction
            operation = notification.operation
            endsTransaction = notification.endsTransaction
            id = try notification.id.map { try JSONDecoder().decode(JSONValue.self, from: Data($0.utf8)) }
            row = try notification.row?.decode(as: Todo.self, with: JSONDecoder())
        }
    }

    /// A payload in the trigger's form, with its id in any JSON spelling.
    static func triggerPayload(
        transaction: UInt64, number: Int, ends: Bool, operation: String, id: String?, row: Todo?
    ) throws -> String {
        var payload = #"{"v":2,"tx":"\#(transaction)","n":\#(number),"end":\#(ends),"op":"\#(operation)""#
        if let id { payload += #","id":\#(id)"# }
        if let row { payload += #","row":"# + String(decoding: try JSONEncoder().encode(row), as: UTF8.self) }
        return payload + "}"
    }

    /// The payload read by the trigger form's reader, without a JSON decoder; `nil` when it is not in that form.
    static func readDirectly(_ payload: String) -> _Notification? {
        var payload = payload
        return payload.withUTF8(_TriggerPayloadReader.read)
    }

    @Test("The trigger's form, read without a JSON decoder, says what JSONDecoder reads in it (random payloads)")
    func readerAgreesWithDecoder() throws {
        var random = SeededGenerator(seed: 26)
        let ids = [#"42"#, #"-7"#, #"1.5e3"#, #""abc""#, #""q\"uo\\te\u00e9 é""#, #"null"#, #"true"#, #""""#]
        let titles = ["Buy milk", "quote \" and \\ backslash", "é ü 😀", "{\"not\":\"json\"}", ""]
        for _ in 0..<500 {
            let operation = ["insert", "update", "delete", "truncate", "commit", "explode"].randomElement(
                using: &random)!
            let hasID = operation != "truncate" && Bool.random(using: &random)
            let row =
                hasID && Bool.random(using: &random)
                ? Todo(
                    id: .random(in: 1...1_000, using: &random), title: titles.randomElement(using: &random)!,
                    project: "P\(Int.random(in: 0..<3, using: &random))", priority: .random(in: -3...3, using: &random))
                : nil
            let payload = try Self.triggerPayload(
                transaction: .random(in: 1...UInt64(1) << 40, using: &random),
                number: .random(in: 1...99, using: &random),
                ends: .random(using: &random), operation: operation,
                id: hasID ? ids.randomElement(using: &random)! : nil, row: row)
            let read = try #require(Self.readDirectly(payload), "not read directly: \(payload)")
            #expect(try Reading(read) == Reading(_Notification.decode(payload)), "\(payload)")
        }
    }

    @Test("Anything but the trigger's exact form goes through JSONDecoder, and reads the same")
    func otherFormsAreDecoded() throws {
        let payloads = [
            // Format 1, and its commit marker.
            #"{"v":1,"tx":"7514","n":3,"op":"update","id":42,"row":{"id":42,"title":"a","project":"P","priority":1}}"#,
            #"{"v" : 1, "tx" : "7514", "n" : 4, "op" : "commit"}"#,
            // The trigger's fields, spaced, reordered, or with one more.
            #"{"v":2, "tx":"1","n":1,"end":true,"op":"delete","id":1}"#,
            #"{"tx":"1","v":2,"n":1,"end":true,"op":"delete","id":1}"#,
            #"{"v":2,"tx":"1","n":1,"end":true,"op":"delete","id":1,"extra":0}"#,
            // An object as the id.
            #"{"v":2,"tx":"1","n":1,"end":true,"op":"delete","id":{"a":1}}"#,
        ]
        for payload in payloads {
            #expect(Self.readDirectly(payload) == nil, "\(payload)")
            #expect(try Reading(_Notification.read(payload)) == Reading(_Notification.decode(payload)))
        }
        let marker = try _Notification.read(payloads[1])
        #expect(marker.operation == "commit" && marker.transaction == "7514" && marker.id == nil)
    }

    @Test("Cut or broken payloads in the trigger's form are not read directly, and fail to decode")
    func brokenPayloads() throws {
        let whole = try Self.triggerPayload(
            transaction: 7, number: 1, ends: true, operation: "insert", id: "5",
            row: Todo(id: 5, title: "t", project: "P", priority: 1))
        for length in 0..<whole.utf8.count {
            let cut = String(whole.utf8.prefix(length))!
            #expect(Self.readDirectly(cut) == nil, "\(cut)")
            #expect(throws: (any Error).self) { try _Notification.read(cut) }
        }
        for broken in [
            #"{"v":2,"tx":"x1","n":1,"end":true,"op":"delete","id":1}"#,
            #"{"v":2,"tx":"1","n":1,"end":maybe,"op":"delete","id":1}"#,
            #"{"v":2,"tx":"1","n":1,"end":true,"op":"delete","id":"unterminated}"#,
        ] {
            #expect(Self.readDirectly(broken) == nil, "\(broken)")
        }
    }

    @Test("Notifications sent by hand: format 1 batches end at the commit marker, others at the next transaction")
    func handMadeBatches() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            let channel = live.table.channel
            let before = live.checker.changeSets.count
            func row(_ id: Int, _ transaction: Int, _ number: Int, format: Int = 1) -> String {
                let row = #"{"id":\#(id),"title":"t\#(id)","project":"P","priority":1}"#
                return
                    #"{"v":\#(format),"tx":"\#(transaction)","n":\#(number),"op":"insert","id":\#(id),"row":\#(row)}"#
            }
            // Each NOTIFY is its own transaction here: the batches are told apart by their `tx` fields.
            for payload in [
                row(1, 900, 1), row(2, 900, 2), #"{"v":1,"tx":"900","n":2,"op":"commit"}"#,
                row(3, 901, 1, format: 2), row(4, 901, 2, format: 2),
                // A truncate ends its own batch, and completes the one before.
                #"{"v":2,"tx":"902","n":1,"end":true,"op":"truncate"}"#,
            ] {
                try await client.query("SELECT pg_notify(\(channel), \(payload))")
            }
            #expect(await eventually { live.checker.changeSets.count >= before + 2 })
            let batches = live.checker.changeSets.dropFirst(before).prefix(2).map(\.insertedItems.count)
            #expect(batches == [2, 2])
            // The truncate's refetch shows the table as it is: empty.
            #expect(try await eventually { try await live.matches(client) })
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }

    @Test("A large transaction, delivered from a task, and the small ones right behind it keep their commit order")
    func largeThenSmall() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            let before = live.checker.changeSets.count
            try await client.withConnection { connection in
                let logger = Logger(label: "tests")
                try await connection.query(
                    "INSERT INTO todos (title, project, priority) SELECT 'row ' || i, 'P', i FROM generate_series(1, 500) i",
                    logger: logger)
                for index in 1...5 {
                    try await connection.query(
                        "UPDATE todos SET priority = priority + 1000 WHERE id = \(index)", logger: logger)
                }
                // SET CONSTRAINTS ALL IMMEDIATE fires the deferred trigger with each row: a batch per row.
                try await connection.query("BEGIN", logger: logger)
                try await connection.query("SET CONSTRAINTS ALL IMMEDIATE", logger: logger)
                try await connection.query("DELETE FROM todos WHERE id IN (10, 11)", logger: logger)
                try await connection.query("DELETE FROM todos WHERE id IN (12, 13, 14)", logger: logger)
                try await connection.query("COMMIT", logger: logger)
            }
            let expected = try await LiveTodos.select(client)
            #expect(await eventually { live.checker.latest == expected })
            // One change set per batch: the transactions queued while the large one was delivered may reach the
            // controller together, in commit order, never split.
            let changeSets = Array(live.checker.changeSets.dropFirst(before))
            #expect((2...11).contains(changeSets.count), "\(changeSets.count) change sets")
            #expect(changeSets.first?.insertedItems.count == 500)
            #expect(changeSets.dropFirst().allSatisfy { $0.insertedItems.isEmpty && !$0.isEmpty })
            #expect(changeSets.reduce(0) { $0 + $1.deletedItems.count } == 5)
            // The updates committed before the deletions: no change set updates after one that deletes.
            let lastUpdate = changeSets.lastIndex { !$0.updatedItems.isEmpty || !$0.movedItems.isEmpty } ?? 0
            let firstDeletion = changeSets.firstIndex { !$0.deletedItems.isEmpty } ?? changeSets.count
            #expect(lastUpdate <= firstDeletion)
            #expect(live.checker.violations == [])
        }
    }

    @Test("installTrigger() replaces format 1's commit trigger: each change arrives once, as before")
    func upgradeFromFormatOne() async throws {
        try await withDatabase { client, _ in
            try await client.query(PostgresQuery(unsafeSQL: Todo.createTable()))
            let live = try await LiveTodos(client: client)
            // Format 1's deferred trigger, as an older version installed it, beside this version's three.
            let names = try _TableNames(schema: nil, table: "todos", idColumn: "id", channel: live.table.channel)
            try await client.query(
                PostgresQuery(
                    unsafeSQL: """
                        CREATE CONSTRAINT TRIGGER \(names.formatOneCommitTrigger) AFTER INSERT OR UPDATE OR DELETE
                        ON todos DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION \(names.function)(
                        \(names.channel.sql), \(names.idColumn.sql), "\(names.key)", "commit")
                        """))
            func triggers() async throws -> Int? {
                try await client.query(
                    "SELECT count(*) FROM pg_trigger WHERE tgrelid = 'todos'::regclass AND NOT tgisinternal"
                ).collect().first?.decode(Int.self)
            }
            #expect(try await triggers() == 4)
            try await live.table.installTrigger()
            #expect(try await triggers() == 3)
            let before = live.checker.changeSets.count
            try await client.query("INSERT INTO todos (title, project, priority) VALUES ('once', 'P', 1)")
            #expect(try await eventually { try await live.matches(client) && live.shown.count == 1 })
            // Lets a second notification of the row, if there were one, arrive as a second change set.
            try await Task.sleep(for: .milliseconds(200))
            #expect(live.checker.changeSets.count == before + 1)
            #expect(live.controller.statistics.malformedEvents == 0)
        }
    }
}
