import Foundation
import LiveResults
import Testing

/// What a replica does with updates that do not fit it: it throws, and stays as it was.
@Suite("Replicas and bad updates", .tags(.concurrent))
struct ResultsReplicaTests {
    typealias Update = ResultsUpdate<Item>
    typealias Changes = ResultsUpdate<Item>.Changes

    let v1 = ResultsVersion("00000000000000aa-1")!
    let v2 = ResultsVersion("00000000000000aa-2")!

    func path(_ section: Int, _ item: Int) -> IndexPath { IndexPath(item: item, section: section) }

    /// A replica holding `a: 1, 2, 3 | b: 4, 5` at version 1.
    func replica() throws -> ResultsReplica<Item> {
        let replica = ResultsReplica<Item>()
        try replica.apply(
            Update(
                version: v1,
                content: .results([
                    .init(name: "a", entities: [Item(1, section: "a"), Item(2, section: "a"), Item(3, section: "a")]),
                    .init(name: "b", entities: [Item(4, section: "b"), Item(5, section: "b")]),
                ])))
        return replica
    }

    func ids(_ replica: ResultsReplica<Item>) -> [[Int]] {
        replica.sections.map { $0.objects.map(\.id) }
    }

    /// Applies `changes` from version 1 and expects it to be refused, leaving the replica unchanged.
    func expectRefused(_ changes: Changes, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation) throws
    {
        let replica = try replica()
        let before = SnapshotModel(replica.snapshot)
        #expect(throws: ResultsReplica<Item>.InvalidUpdate.self, comment, sourceLocation: sourceLocation) {
            try replica.apply(Update(version: v2, content: .changes(base: v1, changes)))
        }
        #expect(SnapshotModel(replica.snapshot) == before, comment, sourceLocation: sourceLocation)
        #expect(replica.version == v1, comment, sourceLocation: sourceLocation)
        // The steps undone leave every entity findable by its id at its place.
        for (section, ids) in ids(replica).enumerated() {
            for (item, id) in ids.enumerated() {
                #expect(replica.indexPath(forID: id) == path(section, item), comment, sourceLocation: sourceLocation)
            }
        }
        // And the replica still applies what fits.
        try replica.apply(Update(version: v2, content: .changes(base: v1, Changes(deletedItems: [path(0, 0)]))))
        #expect(ids(replica) == [[2, 3], [4, 5]], comment, sourceLocation: sourceLocation)
    }

    @Test("the first update is the whole results; a change set before it is a gap")
    func firstUpdate() throws {
        let empty = ResultsReplica<Item>()
        #expect(empty.version == nil && empty.fetchedObjects.isEmpty)
        #expect(throws: ResultsReplica<Item>.Gap(version: nil, base: v1)) {
            try empty.apply(Update(version: v2, content: .changes(base: v1, Changes())))
        }
        let replica = try replica()
        #expect(ids(replica) == [[1, 2, 3], [4, 5]])
        #expect(replica.indexPath(forID: 5) == path(1, 1))
        #expect(replica.object(withID: 2) == Item(2, section: "a"))
    }

    @Test("a change set from another version is a gap, and changes nothing")
    func gap() throws {
        let replica = try replica()
        #expect(throws: ResultsReplica<Item>.Gap(version: v1, base: v2)) {
            try replica.apply(
                Update(version: ResultsVersion("00000000000000aa-3")!, content: .changes(base: v2, Changes())))
        }
        #expect(replica.version == v1 && ids(replica) == [[1, 2, 3], [4, 5]])
    }

    @Test("a change set applies by the contract and returns it with ids")
    func applies() throws {
        let replica = try replica()
        let changes = try replica.apply(
            Update(
                version: v2,
                content: .changes(
                    base: v1,
                    Changes(
                        deletedSections: [1], insertedSections: [.init(index: 0, name: "0")],
                        deletedItems: [path(1, 1)],
                        insertedItems: [.init(indexPath: path(0, 0), entity: Item(6, section: "0"))],
                        movedItems: [
                            ItemMove(from: path(1, 0), to: path(1, 0)), ItemMove(from: path(0, 0), to: path(0, 1)),
                        ],
                        updatedItems: [.init(indexPath: path(1, 1), entity: Item(2, section: "a", title: "new"))]))))
        #expect(ids(replica) == [[6, 1], [4, 2, 3]])
        #expect(replica.sections.map(\.name) == ["0", "a"])
        #expect(replica.object(at: path(1, 1)).title == "new")
        #expect(changes.deletedItemIDs == [5] && changes.insertedItemIDs == [6] && changes.movedItemIDs == [4, 1])
        #expect(
            changes.updatedItemIDs == [2] && changes.deletedSectionNames == ["b"]
                && changes.insertedSectionNames == ["0"])
        #expect(replica.version == v2)
        for (id, expected) in [(6, path(0, 0)), (1, path(0, 1)), (4, path(1, 0)), (2, path(1, 1)), (3, path(1, 2))] {
            #expect(replica.indexPath(forID: id) == expected)
        }
    }

    @Test("positions out of range and changes that do not match the contents are refused")
    func refused() throws {
        try expectRefused(Changes(deletedItems: [path(0, 3)]), "delete past a section's end")
        try expectRefused(Changes(deletedItems: [path(2, 0)]), "delete in a section that does not exist")
        try expectRefused(Changes(deletedSections: [0]), "delete a section that keeps items")
        try expectRefused(Changes(deletedSections: [2]), "delete a section that does not exist")
        try expectRefused(
            Changes(insertedItems: [.init(indexPath: path(0, 5), entity: Item(9))]), "insert past a section's end")
        try expectRefused(Changes(insertedItems: [.init(indexPath: path(0, 0), entity: Item(4))]), "insert an id shown")
        try expectRefused(
            Changes(insertedSections: [.init(index: 3, name: "z")]), "insert a section past the end")
        try expectRefused(Changes(insertedSections: [.init(index: 0, name: "z")]), "insert a section left empty")
        try expectRefused(
            Changes(deletedItems: [path(1, 0), path(1, 1)]), "empty a section without deleting it")
        try expectRefused(
            Changes(movedItems: [ItemMove(from: path(0, 7), to: path(1, 0))]), "move from nowhere")
        try expectRefused(
            Changes(movedItems: [ItemMove(from: path(0, 0), to: path(1, 9))]), "move to nowhere")
        try expectRefused(
            Changes(deletedItems: [path(0, 0)], movedItems: [ItemMove(from: path(0, 0), to: path(1, 0))]),
            "delete and move one item")
        try expectRefused(
            Changes(
                insertedItems: [.init(indexPath: path(0, 0), entity: Item(9))],
                movedItems: [ItemMove(from: path(1, 0), to: path(0, 0))]), "two items arrive at one place")
        try expectRefused(
            Changes(updatedItems: [.init(indexPath: path(0, 0), entity: Item(2, section: "a"))]),
            "update names another entity")
        try expectRefused(
            Changes(updatedItems: [.init(indexPath: path(0, 3), entity: Item(9))]), "update past a section's end")
        try expectRefused(Changes(deletedItems: [path(0, 1), path(0, 0)]), "deletes out of order")
        try expectRefused(
            Changes(
                deletedItems: [path(0, 1)],
                insertedItems: [
                    .init(indexPath: path(0, 1), entity: Item(8)), .init(indexPath: path(0, 0), entity: Item(9)),
                ]), "inserts out of order")
    }

    /// An update made in code (or by a faulty server whose JSON a custom decoder read) can hold any integers:
    /// a negative one, or an index path that is not `[section, item]`, is refused like one out of range.
    @Test("negative sections and positions, and index paths of other lengths, are refused")
    func negativeAndMisshapen() throws {
        try expectRefused(Changes(deletedSections: [-1]), "delete section -1")
        try expectRefused(Changes(insertedSections: [.init(index: -1, name: "z")]), "insert section -1")
        try expectRefused(Changes(deletedItems: [path(-1, 0)]), "delete in section -1")
        try expectRefused(Changes(deletedItems: [path(0, -1)]), "delete item -1")
        try expectRefused(Changes(deletedItems: [IndexPath(index: 0)]), "delete at a path of one index")
        try expectRefused(Changes(deletedItems: [IndexPath(indexes: [0, 0, 0])]), "delete at a path of three")
        try expectRefused(
            Changes(insertedItems: [.init(indexPath: path(0, -1), entity: Item(9))]), "insert at item -1")
        try expectRefused(
            Changes(insertedItems: [.init(indexPath: IndexPath(), entity: Item(9))]), "insert at an empty path")
        try expectRefused(
            Changes(movedItems: [ItemMove(from: path(0, 0), to: path(-1, 0))]), "move to section -1")
        try expectRefused(
            Changes(movedItems: [ItemMove(from: path(0, -2), to: path(1, 0))]), "move from item -2")
        try expectRefused(
            Changes(updatedItems: [.init(indexPath: path(0, -1), entity: Item(9))]), "update item -1")
        try expectRefused(
            Changes(updatedItems: [.init(indexPath: IndexPath(index: 1), entity: Item(9))]), "update a path of one")
    }

    @Test("whole results with an empty section, a name or an id twice are refused")
    func wholeResultsRefused() throws {
        let cases: [[Update.Section]] = [
            [.init(name: "a", entities: [])],
            [.init(name: "a", entities: [Item(1)]), .init(name: "a", entities: [Item(2)])],
            [.init(name: "a", entities: [Item(1), Item(1)])],
            [.init(name: "a", entities: [Item(1)]), .init(name: "b", entities: [Item(1)])],
        ]
        for sections in cases {
            let replica = try replica()
            #expect(throws: ResultsReplica<Item>.InvalidUpdate.self) {
                try replica.apply(Update(version: v2, content: .results(sections)))
            }
            #expect(replica.version == v1 && ids(replica) == [[1, 2, 3], [4, 5]])
        }
    }

    @Test("whole results after earlier ones return the change set between them")
    func resync() throws {
        let replica = try replica()
        let before = SnapshotModel(replica.snapshot)
        let changes = try replica.apply(
            Update(
                version: v2,
                content: .results([
                    .init(name: "a", entities: [Item(3, section: "a"), Item(1, section: "a", title: "x")]),
                    .init(name: "c", entities: [Item(5, section: "c"), Item(7, section: "c")]),
                ])))
        expectContract(changes, from: before, to: SnapshotModel(replica.snapshot))
        #expect(changes.insertedItemIDs == [7] && changes.deletedItemIDs.sorted() == [2, 4])
        // 5 changed section ("b" to "c"): a move with new content.
        #expect(changes.movedItemIDs.contains(5) && changes.updatedItemIDs.sorted() == [1, 5])
        // Sections in another order cannot be moved: everything is deleted and inserted.
        let reordered = try replica.apply(
            Update(
                version: ResultsVersion("00000000000000aa-3")!,
                content: .results([
                    .init(name: "c", entities: [Item(5, section: "c")]),
                    .init(name: "a", entities: [Item(3, section: "a")]),
                ])))
        #expect(reordered.deletedSections == [0, 1] && reordered.insertedSections == [0, 1])
        #expect(ids(replica) == [[5], [3]])
    }

    @Test("thousands of insertions at one place keep every index path right", arguments: [0, 1, 2])
    func relabelling(place: Int) async throws {
        let replica = ResultsReplica<Item>()
        try replica.apply(
            Update(version: v1, content: .results([.init(name: "", entities: [Item(-1), Item(-2), Item(-3)])])))
        var expected = [-1, -2, -3]
        var version = v1
        for id in 0..<1_500 {
            if id % 100 == 0 { await Task.yield() }
            let at = place == 0 ? 0 : place == 1 ? expected.count / 2 : expected.count
            let next = ResultsVersion("00000000000000aa-\(id + 2)")!
            try replica.apply(
                Update(
                    version: next,
                    content: .changes(
                        base: version, Changes(insertedItems: [.init(indexPath: path(0, at), entity: Item(id))]))))
            expected.insert(id, at: at)
            version = next
        }
        #expect(replica.fetchedObjects.map(\.id) == expected)
        for (item, id) in expected.enumerated() {
            #expect(replica.indexPath(forID: id) == path(0, item))
        }
    }
}
