import Foundation
import GRDB
import LiveResults

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

/// A seeded random number generator (SplitMix64): the same stream for the same seed.
struct SeededGenerator: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
