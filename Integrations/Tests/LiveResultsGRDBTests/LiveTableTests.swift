import Foundation
import GRDB
import LiveResults
import LiveResultsTesting
import LiveResultsTestSupport
import LiveResultsGRDB
import Testing

@Suite("GRDBLiveTable: a table's records as live results", .timeLimit(.minutes(5)))
struct LiveTableTests {
    @Test(
        "Random writes through records, raw SQL and another connection: the results equal the query's, in order",
        arguments: WriterKind.allCases)
    func randomWrites(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, path in
            try await writer.write { db in
                try Player.createTable(db)
                for id in 1...40 {
                    try Player(id: Int64(id), name: "seed \(id)", team: "T\(id % 3)", score: id % 7).insert(db)
                }
            }
            let live = try await LivePlayers(writer)
            #expect(try await live.shown == live.selected(writer))
            // Another connection on the same file: its commits are seen at the writer's next commit.
            let other = try await offThePool { try DatabaseQueue(path: path) }
            var random = SeededGenerator(seed: 29)
            var nextID: Int64 = 1000
            for round in 0..<60 {
                let seed = random.next()
                let useOther = round % 10 == 9
                nextID += 10
                let firstID = nextID
                let target: any DatabaseWriter = useOther ? other : writer
                try await target.write { db in
                    var random = SeededGenerator(seed: seed)
                    for step in 0..<Int.random(in: 1...5, using: &random) {
                        let team = "T\(Int.random(in: 0..<4, using: &random))"
                        let score = Int.random(in: 0..<9, using: &random)
                        switch Int.random(in: 0..<6, using: &random) {
                        case 0:
                            try Player(id: firstID + Int64(step), name: "r\(round)", team: team, score: score).insert(
                                db)
                        case 1:
                            try db.execute(
                                sql: "INSERT INTO player (name, team, score) VALUES (?, ?, ?)",
                                arguments: ["sql \(round)", team, score])
                        case 2:
                            try db.execute(
                                sql:
                                    "UPDATE player SET score = ? WHERE id = (SELECT id FROM player ORDER BY random() LIMIT 1)",
                                arguments: [score])
                        case 3:
                            try db.execute(
                                sql: "UPDATE player SET team = ?, name = 'moved' WHERE id % 7 = ?",
                                arguments: [team, Int.random(in: 0..<7, using: &random)])
                        case 4:
                            if var player = try Player.order(sql: "random()").fetchOne(db) {
                                player.score += 1
                                try player.update(db)
                            }
                        default:
                            try db.execute(
                                sql: "DELETE FROM player WHERE id IN (SELECT id FROM player ORDER BY random() LIMIT 2)")
                        }
                    }
                    // A savepoint rolled back: its changes are never delivered.
                    try db.inSavepoint {
                        try db.execute(sql: "UPDATE player SET score = score + 100")
                        return .rollback
                    }
                }
                if useOther { try await writer.write { _ in } }
                #expect(try await live.waitUntilMatching(writer), "round \(round)")
            }
            #expect(live.checker.violations.isEmpty)
            #expect(live.controller.statistics.malformedEvents == 0)
            try await offThePool { try other.close() }
        }
    }

    @Test("One change set per transaction; a rolled-back transaction delivers nothing", arguments: WriterKind.allCases)
    func oneChangeSetPerTransaction(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in try Player.createTable(db) }
            let live = try await LivePlayers(writer)
            try await writer.write { db in
                for id in 1...5 { try Player(id: Int64(id), name: "p\(id)", team: "A", score: id).insert(db) }
            }
            #expect(await eventually { live.checker.changeSets.count == 1 })
            #expect(live.checker.changeSets.first?.insertedItems.count == 5)
            try await writer.write { db in
                try db.execute(sql: "UPDATE player SET score = 10 WHERE id = 1")
                try db.execute(sql: "DELETE FROM player WHERE id = 2")
                try Player(id: 6, name: "p6", team: "B", score: 0).insert(db)
            }
            #expect(await eventually { live.checker.changeSets.count == 2 })
            // Rolled back: nothing; then a marker transaction that is delivered alone.
            do {
                try await writer.write { db in
                    try db.execute(sql: "DELETE FROM player")
                    throw CancellationError()
                }
            } catch is CancellationError {}
            try await writer.write { db in try db.execute(sql: "UPDATE player SET name = 'marker' WHERE id = 6") }
            #expect(await eventually { live.checker.changeSets.count == 3 })
            #expect(live.checker.changeSets[2].updatedItems.count == 1)
            #expect(live.checker.changeSets[2].deletedItems.isEmpty)
            #expect(try await live.shown == live.selected(writer))
            #expect(live.checker.violations.isEmpty)
        }
    }

    @Test("Two controllers with different filters and orders on one table", arguments: WriterKind.allCases)
    func twoControllers(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in
                try Player.createTable(db)
                for id in 1...30 {
                    try Player(id: Int64(id), name: "p\(id)", team: "T\(id % 2)", score: id).insert(db)
                }
            }
            let high = try await LivePlayers(
                writer, condition: "score >= 15", request: Player.filter(Column("score") >= 15)
            ) { $0.score >= 15 }
            let table = GRDBLiveTable<Player>(writer)
            let byName = FetchedResultsController(
                definition: table.fetchDefinition(Player.filter(Column("team") == "T0").order(Column("name"))) {
                    $0.team == "T0"
                },
                sortDescriptors: [SortDescriptor(\Player.name), SortDescriptor(\Player.id)])
            let byNameChecker = ContractChecker(byName)
            let subscription = byName.observe(table)
            try await byName.performFetch()
            @Sendable func byNameSelected() async throws -> [Player] {
                try await writer.read { db in
                    try Player.filter(Column("team") == "T0").order(Column("name"), Column("id")).fetchAll(db)
                }
            }
            for round in 0..<20 {
                try await writer.write { db in
                    try db.execute(
                        sql: "UPDATE player SET score = (score * 7 + ?) % 31 WHERE id % 3 = ?",
                        arguments: [round, round % 3])
                    try db.execute(
                        sql:
                            "UPDATE player SET team = 'T' || ((id + ?) % 2), name = 'n' || ((id * ?) % 17) WHERE id % 4 = ?",
                        arguments: [round, round, round % 4])
                    try db.execute(
                        sql: "INSERT INTO player (name, team, score) VALUES (?, 'T0', ?)",
                        arguments: ["new \(round)", round])
                    try db.execute(sql: "DELETE FROM player WHERE id = (SELECT min(id) FROM player WHERE score < 5)")
                }
                #expect(try await high.waitUntilMatching(writer))
                #expect(try await eventually { try await Array(byName.fetchedObjects) == byNameSelected() })
            }
            #expect(high.checker.violations.isEmpty)
            #expect(byNameChecker.violations.isEmpty)
            subscription.cancel()
        }
    }

    @Test("Keyed pages over an index: pages append, live events apply between pages", arguments: WriterKind.allCases)
    func keyedPages(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in
                try Player.createTable(db)
                for id in 1...95 { try Player(id: Int64(id), name: "p\(id)", team: "A", score: id % 10).insert(db) }
            }
            let table = GRDBLiveTable<Player>(writer)
            let controller = FetchedResultsController(
                definition: table.fetchDefinition(pagesBy: Column("score"), descending: true, limit: 20),
                sortDescriptors: [
                    SortDescriptor(\Player.score, order: .reverse), SortDescriptor(\Player.id, order: .reverse),
                ])
            let checker = ContractChecker(controller)
            let subscription = controller.observe(table)
            try await controller.performFetch()
            #expect(controller.fetchedObjects.count == 20)
            let all = try await writer.read { db in
                try Player.order(Column("score").desc, Column("id").desc).fetchAll(db)
            }
            #expect(Array(controller.fetchedObjects) == Array(all.prefix(20)))
            while controller.hasNextPage { try await controller.loadNextPage() }
            #expect(Array(controller.fetchedObjects) == all)
            try await writer.write { db in try db.execute(sql: "UPDATE player SET score = 100 WHERE id = 1") }
            #expect(await eventually { controller.fetchedObjects.first?.id == 1 })
            #expect(checker.violations.isEmpty)
            subscription.cancel()
        }
    }
}
