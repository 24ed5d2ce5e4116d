import Foundation
import GRDB
import LiveResults
import LiveResultsTesting

/// The records of the tests: players in teams, ranked by score. The id is the rowid.
struct Player: Codable, FetchableRecord, PersistableRecord, FetchableEntity {
    var id: Int64
    var name: String
    var team: String
    var score: Int

    static let databaseTableName = "player"

    /// Sections by team, then score descending, then id: the same order as ``orderSQL``.
    static let sortDescriptors = [SortDescriptor(\Player.score, order: .reverse), SortDescriptor(\Player.id)]
    static let orderSQL = "team, score DESC, id"

    static func createTable(_ db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE player (id INTEGER PRIMARY KEY, name TEXT NOT NULL, team TEXT NOT NULL, score INTEGER NOT NULL);
                CREATE INDEX player_score ON player(score);
                """)
    }
}

/// `LiveResultsTesting`'s SplitMix64, so that a failing random test can be replayed.
typealias SeededGenerator = SeededRandom
