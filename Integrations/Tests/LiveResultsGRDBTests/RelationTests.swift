import Foundation
import GRDB
import LiveResults
import LiveResultsGRDB
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsTesting
import NIOConcurrencyHelpers
import Testing

/// A club, which members belong to.
struct Club: Codable, Hashable, FetchableRecord, PersistableRecord, FetchableEntity, QueryableEntity {
    var id: Int64
    var name: String

    static let databaseTableName = "club"
    static let queryColumns: [QueryColumn<Club>] = [QueryColumn("id", \.id), QueryColumn("name", \.name)]
}

/// A member of a club, or of none.
struct Member: Codable, Hashable, FetchableRecord, PersistableRecord, FetchableEntity, QueryableEntity {
    var id: Int64
    var name: String
    var club_id: Int64?

    static let databaseTableName = "member"
    static let queryColumns: [QueryColumn<Member>] = [
        QueryColumn("id", \.id), QueryColumn("name", \.name), QueryColumn("club_id", \.club_id),
    ]
}

/// Relations over GRDB tables: embedding reads them as SQLite joins them, and a live association follows a
/// table's own events.
@Suite("Relations over GRDB", .timeLimit(.minutes(3)))
struct RelationTests {
    /// Five clubs and 40 members, a random club each or none.
    static func populate(_ writer: any DatabaseWriter, seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        let members = (1...40).map { id in
            Member(id: Int64(id), name: "m\(id)", club_id: Int64.random(in: 0...5, using: &generator).nonZero)
        }
        try await writer.write { db in
            try db.execute(
                sql: """
                    CREATE TABLE club (id INTEGER PRIMARY KEY, name TEXT NOT NULL);
                    CREATE TABLE member (id INTEGER PRIMARY KEY, name TEXT NOT NULL, club_id INTEGER REFERENCES club(id));
                    """)
            for id in 1...5 { try Club(id: Int64(id), name: "club \(id)").insert(db) }
            for member in members { try member.insert(db) }
        }
    }

    static func relations(_ writer: any DatabaseWriter) -> LiveRelations {
        var relations = LiveRelations()
        relations.addTable("club", source: GRDBLiveTable<Club>(writer))
        relations.addTable("member", source: GRDBLiveTable<Member>(writer))
        relations.addForeignKey(from: "member", column: "club_id", to: "club")
        return relations
    }

    /// The objects as JSON values, to compare with what SQLite answers.
    static func json(_ objects: [Data?]) throws -> [NSDictionary] {
        try objects.map { data in
            let object = try JSONSerialization.jsonObject(with: try #require(data))
            return try #require(object as? NSDictionary)
        }
    }

    @Test("embedding in both directions answers what SQLite's LEFT JOIN answers", arguments: [1, 2] as [UInt64])
    func embeddingMatchesSQLite(seed: UInt64) async throws {
        try await withDatabase(.pool) { writer, _ in
            try await Self.populate(writer, seed: seed)
            let relations = Self.relations(writer)
            let members = try await writer.read { try Member.order(Column("id")).fetchAll($0) }
            let manyToOne = try Self.json(
                try await relations.objects(
                    of: members, select: try SelectList(parsing: "id,club(name)"), table: "member"))
            let joined = try await writer.read { db -> [(id: Int64, club: String?)] in
                let sql = "SELECT m.id, c.name FROM member m LEFT JOIN club c ON c.id = m.club_id ORDER BY m.id"
                return try Row.fetchAll(db, sql: sql).map { (id: $0["id"], club: $0["name"]) }
            }
            #expect(manyToOne.count == joined.count, "seed \(seed)")
            for (object, row) in zip(manyToOne, joined) {
                let club = (object["club"] as? NSDictionary)?["name"] as? String
                #expect(object["id"] as? Int64 == row.id, "seed \(seed)")
                #expect(club == row.club, "seed \(seed), member \(object["id"] ?? "?")")
            }
            let clubs = try await writer.read { try Club.order(Column("id")).fetchAll($0) }
            let oneToMany = try Self.json(
                try await relations.objects(of: clubs, select: try SelectList(parsing: "id,member(id)"), table: "club"))
            for object in oneToMany {
                let id = try #require(object["id"] as? Int64)
                let shown = try #require(object["member"] as? [NSDictionary]).compactMap { $0["id"] as? Int64 }
                let expected = try await writer.read { db -> [Int64] in
                    try Int64.fetchAll(db, sql: "SELECT id FROM member WHERE club_id = ? ORDER BY id", arguments: [id])
                }
                #expect(shown.sorted() == expected, "seed \(seed), club \(id)")
            }
        }
    }

    @Test("a live association following a GRDB table: a rename in SQLite updates the members that show the club")
    func liveAssociationFollowsTheTable() async throws {
        try await withDatabase(.pool) { writer, _ in
            try await Self.populate(writer, seed: 3)
            let clubs = GRDBLiveTable<Club>(writer)
            let association = Association<Member, Club>(key: \.club_id, following: clubs) { ids in
                try await writer.read { db in
                    Dictionary(
                        uniqueKeysWithValues: try Club.filter(ids.contains(Column("id"))).fetchAll(db).map {
                            ($0.id, $0)
                        })
                }
            }
            let controller = FetchedResultsController(
                definition: FetchDefinition(
                    request: { try await writer.read { try Member.fetchAll($0) } }, associations: [association]),
                sortDescriptors: [SortDescriptor(\Member.id)])
            try await controller.performFetch()
            let members = Array(controller.fetchedObjects)
            for member in members { _ = try await controller.loadAssociatedValue(association, for: member) }
            let showing = Set(members.filter { $0.club_id == 2 }.map(\.id))
            try #require(!showing.isEmpty)
            let changes = NIOLockedValueBox<[ChangeSet<Member>]>([])
            let (_, observation) = controller.observeChanges { change, _ in
                changes.withLockedValue { $0.append(change) }
            }
            try await writer.write { try $0.execute(sql: "UPDATE club SET name = 'Renamed' WHERE id = 2") }
            #expect(await eventually { changes.withLockedValue { !$0.isEmpty } })
            let updated = changes.withLockedValue { $0.reduce(into: Set<Int64>()) { $0.formUnion($1.updatedItemIDs) } }
            #expect(updated == showing)
            for member in members where member.club_id == 2 {
                #expect(controller.associatedValue(association, for: member)?.name == "Renamed")
            }
            withExtendedLifetime(observation) {}
        }
    }
}

extension Int64 {
    /// `nil` for zero.
    fileprivate var nonZero: Int64? { self == 0 ? nil : self }
}
