import Foundation
import GRDB
import LiveResults
import LiveResultsGRDB
import LiveResultsTesting
import Testing

extension Player: QueryableEntity {
    static let queryColumns: [QueryColumn<Player>] = [
        QueryColumn("id", \.id), QueryColumn("name", \.name), QueryColumn("team", \.team),
        QueryColumn("score", \.score),
    ]
}

/// A live query's filters as a GRDB request: the records SQLite selects are those `isIncluded` accepts.
@Suite("Live queries over GRDB", .timeLimit(.minutes(3)))
struct QueryTests {
    static let names = ["a", "B", "b", "é", "éx", "z", "O'Brien", "'; DROP TABLE player; --", "日本", ""]

    @Test(
        "random queries select in SQL exactly what their isIncluded accepts, every value bound",
        arguments: [1, 2] as [UInt64])
    func sqlMatchesSwift(seed: UInt64) async throws {
        try await withDatabase(.queue) { writer, _ in
            var generator = SeededGenerator(seed: seed)
            let players = (1...120).map { id in
                Player(
                    id: Int64(id), name: Self.names.randomElement(using: &generator)!,
                    team: ["red", "blue", "Ünï"].randomElement(using: &generator)!,
                    score: Int.random(in: -2...3, using: &generator))
            }
            try await writer.write { db in
                try Player.createTable(db)
                for player in players { try player.insert(db) }
            }
            let table = GRDBLiveTable<Player>(writer)
            for _ in 0..<150 {
                let query = try Self.randomQuery(using: &generator)
                let fetched = try await table.fetchDefinition(for: query).request()
                #expect(Set(fetched.map(\.id)) == Set(players.filter(query.isIncluded).map(\.id)), "\(query)")
            }
            #expect(try await writer.read { try Player.fetchCount($0) } == 120)
        }
    }

    static func randomQuery(using generator: inout SeededGenerator) throws -> LiveQuery<Player> {
        var filters: [LiveQueryFilter] = []
        for _ in 0..<Int.random(in: 1...3, using: &generator) {
            let name = QueryValue.text(Self.names.randomElement(using: &generator)!)
            let score = QueryValue.integer(Int64.random(in: -2...3, using: &generator))
            let (column, condition): (String, LiveQueryCondition) =
                switch Int.random(in: 0..<12, using: &generator) {
                case 0: ("name", .equal(name))
                case 1: ("name", .lessThan(name))
                case 2: ("name", .greaterThanOrEqual(name))
                case 3: ("name", .in([name, .text("z")]))
                case 4: ("score", .notEqual(score))
                case 5: ("score", .lessThanOrEqual(score))
                case 6: ("score", .greaterThan(score))
                case 7: ("team", .in([.text("Ünï"), .text("red")]))
                case 8: ("name", .notIn([name, .text("z")]))
                case 9: ("team", .notIn(Bool.random(using: &generator) ? [] : [.text("red")]))
                case 10: ("score", .isNotNull)
                default: ("team", .notEqual(.text("blue")))
                }
            filters.append(LiveQueryFilter(column: column, condition: condition))
        }
        return try LiveQuery(filters: filters, sectionedBy: "team")
    }
}
