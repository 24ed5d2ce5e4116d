import Foundation
import GRDB
import LiveResults
import LiveResultsTestSupport
import LiveResultsGRDB
import NIOConcurrencyHelpers
import Testing

@Suite("GRDBLiveTable: bad input", .timeLimit(.minutes(5)))
struct BadInputTests {
    @Test(
        "A row that does not decode (NULL in a non-optional column, by raw SQL) is reported; its batch goes on",
        arguments: WriterKind.allCases)
    func undecodableRow(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in
                try db.execute(
                    sql:
                        "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT, team TEXT NOT NULL, score INTEGER NOT NULL)"
                )
                try Player(id: 1, name: "one", team: "A", score: 1).insert(db)
            }
            let live = try await LivePlayers(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = live.table.subscribe(recorder.subscriber)
            try await writer.write { db in
                try Player(id: 2, name: "two", team: "A", score: 2).insert(db)
                try db.execute(sql: "INSERT INTO player (id, name, team, score) VALUES (3, NULL, 'A', 3)")
                try db.execute(sql: "UPDATE player SET name = NULL WHERE id = 1")
                try Player(id: 4, name: "four", team: "B", score: 4).insert(db)
            }
            #expect(await eventually { live.controller.statistics.malformedEvents == 2 })
            // Sections by team, then score descending.
            #expect(await eventually { live.shown.map(\.id) == [2, 1, 4] })
            // Row 1 keeps the version shown before; the rows that decode arrived in one change set (the
            // first change set is the fetch's).
            #expect(live.shown.first { $0.id == 1 }?.name == "one")
            #expect(await eventually { live.checker.changeSets.count == 2 })
            #expect(await eventually { recorder.malformed.count == 2 })
            #expect(recorder.malformed.allSatisfy { "\($0)".contains("does not decode") })
            // A fetch that meets such a row throws, and the controller keeps what it shows.
            await #expect(throws: (any Error).self) { try await live.controller.performFetch() }
            #expect(live.shown.map(\.id) == [2, 1, 4])
            #expect(live.checker.violations.isEmpty)
            subscription.cancel()
        }
    }

    @Test(
        "A table whose primary key is not its rowid (WITHOUT ROWID, composite key) is refused by fetches and subscriptions",
        arguments: [
            "CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT NOT NULL, score INTEGER NOT NULL) WITHOUT ROWID",
            "CREATE TABLE player (id INTEGER NOT NULL, name TEXT NOT NULL, team TEXT NOT NULL, score INTEGER NOT NULL, PRIMARY KEY (id, team))",
        ])
    func primaryKeyIsNotRowID(schema: String) async throws {
        try await withDatabase(.pool) { writer, _ in
            try await writer.write { db in
                try db.execute(sql: schema)
                try Player(id: 1, name: "one", team: "A", score: 1).insert(db)
            }
            let table = GRDBLiveTable<Player>(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = table.subscribe(recorder.subscriber)
            // Reported once the observer's installation has run on the writer's queue.
            #expect(await eventually { recorder.malformed.count == 1 })
            #expect(recorder.malformed.allSatisfy { "\($0)".contains("is not its rowid") })
            let controller = FetchedResultsController(definition: table.fetchDefinition(), sortDescriptors: [])
            await #expect(throws: GRDBLiveTableError.self) { try await controller.performFetch() }
            // The writes go on; nothing is delivered.
            try await writer.write { db in try Player(id: 2, name: "two", team: "A", score: 2).insert(db) }
            try await writer.write { _ in }
            #expect(recorder.batches.isEmpty)
            subscription.cancel()
        }
    }

    @Test(
        "Raw SQL writes, INSERT OR REPLACE, and DELETE without WHERE (no truncate optimisation): row by row",
        arguments: WriterKind.allCases)
    func rawSQL(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in try Player.createTable(db) }
            let live = try await LivePlayers(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = live.table.subscribe(recorder.subscriber)
            try await writer.write { db in
                try db.execute(
                    sql: "INSERT INTO player (name, team, score) VALUES ('a', 'A', 1), ('b', 'A', 2), ('c', 'B', 3)")
            }
            #expect(try await live.waitUntilMatching(writer))
            try await writer.write { db in
                try db.execute(sql: "INSERT OR REPLACE INTO player (id, name, team, score) VALUES (2, 'b2', 'B', 9)")
                try db.execute(sql: "UPDATE player SET score = score + 1")
            }
            #expect(try await live.waitUntilMatching(writer))
            try await writer.write { db in try db.execute(sql: "DELETE FROM player") }
            // The checker's snapshot, not the controller's: its change set is delivered after the results.
            #expect(await eventually { live.checker.latest.isEmpty })
            #expect(live.checker.changeSets.last?.deletedItems.count == 3)
            #expect(recorder.invalidations == 0)
            #expect(live.checker.violations.isEmpty)
            subscription.cancel()
        }
    }

    @Test(
        "A transaction that inserts and deletes the same row changes nothing; delete then insert is an update",
        arguments: WriterKind.allCases)
    func insertAndDeleteSameRow(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in
                try Player.createTable(db)
                try Player(id: 1, name: "one", team: "A", score: 1).insert(db)
            }
            let live = try await LivePlayers(writer)
            try await writer.write { db in
                try Player(id: 2, name: "two", team: "A", score: 2).insert(db)
                try db.execute(sql: "DELETE FROM player WHERE id = 2")
            }
            try await writer.write { db in
                try db.execute(sql: "DELETE FROM player WHERE id = 1")
                try Player(id: 1, name: "one again", team: "A", score: 1).insert(db)
            }
            #expect(await eventually { live.shown.first?.name == "one again" })
            // The fetch's change set, then the update; the first transaction changed nothing.
            #expect(await eventually { live.checker.changeSets.count == 2 })
            #expect(live.checker.changeSets.last?.updatedItems == [IndexPath(item: 0, section: 0)])
            #expect(live.checker.changeSets.last?.insertedItems.isEmpty == true)
            #expect(live.checker.changeSets.last?.deletedItems.isEmpty == true)
            #expect(live.checker.violations.isEmpty)
        }
    }

    @Test("10,000 rows in one transaction: one batch, one change set", arguments: WriterKind.allCases)
    func tenThousandRows(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in try Player.createTable(db) }
            let live = try await LivePlayers(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = live.table.subscribe(recorder.subscriber)
            try await writer.write { db in
                for id in 1...10_000 {
                    try Player(id: Int64(id), name: "p\(id)", team: "T\(id % 5)", score: id % 100).insert(db)
                }
            }
            #expect(await eventually { live.shown.count == 10_000 })
            #expect(await eventually { live.checker.changeSets.count == 1 })
            #expect(live.checker.changeSets.first?.insertedItems.count == 10_000)
            #expect(await eventually { recorder.batches.count == 1 })
            #expect(recorder.batches.first?.count == 10_000)
            try await writer.write { db in try db.execute(sql: "UPDATE player SET score = score + 1 WHERE id % 2 = 0") }
            #expect(try await live.waitUntilMatching(writer))
            #expect(await eventually { live.checker.changeSets.count == 2 })
            #expect(live.checker.violations.isEmpty)
            subscription.cancel()
        }
    }

    @Test(
        "A schema change while observed invalidates: the controller refetches; a dropped table fails the refetch",
        arguments: WriterKind.allCases)
    func schemaChange(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in
                try Player.createTable(db)
                for id in 1...5 { try Player(id: Int64(id), name: "p\(id)", team: "A", score: id).insert(db) }
            }
            let live = try await LivePlayers(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = live.table.subscribe(recorder.subscriber)
            try await writer.write { db in
                try db.execute(sql: "ALTER TABLE player ADD COLUMN nickname TEXT")
                try db.execute(sql: "UPDATE player SET score = 50 WHERE id = 1")
            }
            #expect(await eventually { recorder.invalidations == 1 })
            #expect(try await live.waitUntilMatching(writer))
            try await writer.write { db in try db.drop(table: "player") }
            #expect(await eventually { recorder.invalidations == 2 })
            #expect(
                await eventually {
                    if case .failed = live.controller.state { true } else { false }
                })
            #expect(live.shown.count == 5)
            #expect(live.checker.violations.isEmpty)
            subscription.cancel()
        }
    }

    @Test(
        "The database replaced while observed (a restore with backup(to:), another connection's writes): refetch",
        arguments: WriterKind.allCases)
    func databaseReplaced(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, path in
            try await writer.write { db in
                try Player.createTable(db)
                for id in 1...5 { try Player(id: Int64(id), name: "p\(id)", team: "A", score: id).insert(db) }
            }
            let live = try await LivePlayers(writer)
            let recorder = BatchRecorder<Player>()
            let subscription = live.table.subscribe(recorder.subscriber)
            // A backup with other players, restored into the observed database.
            let backupPath = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent(
                "backup.sqlite"
            ).path
            let backup = try await offThePool { try DatabaseQueue(path: backupPath) }
            try await backup.write { db in
                try Player.createTable(db)
                for id in 3...9 { try Player(id: Int64(id), name: "restored \(id)", team: "B", score: id).insert(db) }
            }
            try await offThePool { try backup.backup(to: writer) }
            // Seen at the writer's next commit.
            try await writer.write { _ in }
            #expect(await eventually { recorder.invalidations == 1 })
            #expect(try await live.waitUntilMatching(writer))
            #expect(live.shown.map(\.name).allSatisfy { $0.hasPrefix("restored") })
            // Another connection on the same file, then `notifyChanges(in:)`: one refetch.
            let other = try await offThePool { try DatabaseQueue(path: path) }
            try await other.write { db in try db.execute(sql: "DELETE FROM player WHERE id > 6") }
            try await writer.write { db in try db.notifyChanges(in: Table("player")) }
            #expect(await eventually { recorder.invalidations == 2 })
            #expect(try await live.waitUntilMatching(writer))
            #expect(live.checker.violations.isEmpty)
            try await offThePool {
                try other.close()
                try backup.close()
            }
            subscription.cancel()
        }
    }

    @Test(
        "A controller released while a transaction is open: nothing is delivered to it, the writer goes on",
        arguments: WriterKind.allCases)
    func controllerReleasedDuringTransaction(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in try Player.createTable(db) }
            let table = GRDBLiveTable<Player>(writer)
            let recorder = BatchRecorder<Player>()
            let other = table.subscribe(recorder.subscriber)
            weak var released: FetchedResultsController<Player>?
            var subscription: EventSubscription?
            do {
                let controller = FetchedResultsController(definition: table.fetchDefinition(), sortDescriptors: [])
                subscription = controller.observe(table)
                try await controller.performFetch()
                released = controller
            }
            // The write holds its transaction open until `proceed`: the semaphore blocks GRDB's writer
            // thread (the write is GRDB's async one), never a thread of the test's.
            let opened = NIOLockedValueBox(false)
            let proceed = DispatchSemaphore(value: 0)
            let writing = Task {
                try await writer.write { db in
                    try Player(id: 1, name: "one", team: "A", score: 1).insert(db)
                    opened.withLockedValue { $0 = true }
                    _ = proceed.wait(timeout: .now() + 20)
                    try Player(id: 2, name: "two", team: "A", score: 2).insert(db)
                }
            }
            #expect(await eventually { opened.withLockedValue { $0 } })
            subscription = nil  // releases the subscription (it cancels), then the controller
            _ = subscription
            #expect(released == nil)
            proceed.signal()
            try await writing.value
            #expect(await eventually { recorder.batches.count == 1 })
            #expect(recorder.batches.first?.count == 2)
            // The writer is free and the other subscription still works.
            try await writer.write { db in try db.execute(sql: "DELETE FROM player WHERE id = 1") }
            #expect(await eventually { recorder.batches.count == 2 })
            other.cancel()
        }
    }
}
