import Foundation
import GRDB
import LiveResults
import LiveResultsGRDB
import Testing

/// `GRDBLiveTable.synchronize()`: each commit's batch waits on its subscription's delivery queue when the write
/// returns; once `synchronize()` returns it has been delivered, and the controller shows it.
@Suite("GRDBLiveTable: synchronize", .timeLimit(.minutes(2)))
struct SynchronizeTests {
    @Test("each write is in the controller once synchronize returns", arguments: WriterKind.allCases)
    func readYourWrites(kind: WriterKind) async throws {
        try await withDatabase(kind) { writer, _ in
            try await writer.write { db in try Player.createTable(db) }
            let live = try await LivePlayers(writer)
            for round in 0..<60 {
                let id = Int64(round + 1)
                try await writer.write { db in
                    try Player(id: id, name: "r\(round)", team: "T\(round % 3)", score: round % 7).insert(db)
                }
                try await live.table.synchronize()
                await live.controller.waitForDeliveredEvents()
                #expect(live.shown.contains { $0.id == id }, "\(kind) round \(round)")
            }
            live.subscription.cancel()
        }
    }
}
