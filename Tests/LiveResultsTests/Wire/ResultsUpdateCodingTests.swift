import Foundation
import LiveResults
import Testing

/// The JSON form of updates (format 1), as a client in another language reads it.
@Suite("The JSON form of updates")
struct ResultsUpdateCodingTests {
    let version = ResultsVersion("00000000000000aa-7")!
    let base = ResultsVersion("00000000000000aa-6")!

    func json(_ update: ResultsUpdate<Item>) throws -> [String: Any] {
        try #require(JSONSerialization.jsonObject(with: JSONEncoder().encode(update)) as? [String: Any])
    }

    func decode(_ text: String) throws -> ResultsUpdate<Item> {
        try JSONDecoder().decode(ResultsUpdate<Item>.self, from: Data(text.utf8))
    }

    @Test("whole results: format, version, a null base, sections of entities")
    func wholeResults() throws {
        let update = ResultsUpdate<Item>(
            version: version, content: .results([.init(name: "Home", entities: [Item(1, section: "Home", score: 2)])]))
        let object = try json(update)
        #expect(object["format"] as? Int == 1)
        #expect(object["version"] as? String == "00000000000000aa-7")
        #expect(object["base"] is NSNull)
        let sections = try #require(object["sections"] as? [[String: Any]])
        #expect(sections.count == 1)
        #expect(sections[0]["name"] as? String == "Home")
        let entity = try #require((sections[0]["entities"] as? [[String: Any]])?.first)
        #expect(entity["id"] as? Int == 1 && entity["score"] as? Int == 2 && entity["section"] as? String == "Home")
        #expect(try decode(String(decoding: JSONEncoder().encode(update), as: UTF8.self)) == update)
    }

    @Test("a change set: positions as [section, item], entities only where inserted or updated")
    func changeSet() throws {
        let changes = ResultsUpdate<Item>.Changes(
            deletedSections: [0], insertedSections: [.init(index: 1, name: "Later")],
            deletedItems: [IndexPath(item: 3, section: 0)],
            insertedItems: [.init(indexPath: IndexPath(item: 0, section: 1), entity: Item(9, section: "Later"))],
            movedItems: [ItemMove(from: IndexPath(item: 4, section: 0), to: IndexPath(item: 2, section: 1))],
            updatedItems: [.init(indexPath: IndexPath(item: 2, section: 1), entity: Item(5, section: "Later"))])
        let update = ResultsUpdate<Item>(version: version, content: .changes(base: base, changes))
        let object = try json(update)
        #expect(object["base"] as? String == "00000000000000aa-6")
        #expect(object["sections"] == nil)
        let wire = try #require(object["changes"] as? [String: Any])
        #expect(wire["deletedSections"] as? [Int] == [0])
        #expect((wire["insertedSections"] as? [[String: Any]])?.first?["name"] as? String == "Later")
        #expect((wire["insertedSections"] as? [[String: Any]])?.first?["index"] as? Int == 1)
        #expect(wire["deletedItems"] as? [[Int]] == [[0, 3]])
        let inserted = try #require((wire["insertedItems"] as? [[String: Any]])?.first)
        #expect(inserted["at"] as? [Int] == [1, 0])
        #expect((inserted["entity"] as? [String: Any])?["id"] as? Int == 9)
        let moved = try #require((wire["movedItems"] as? [[String: Any]])?.first)
        #expect(moved["from"] as? [Int] == [0, 4] && moved["to"] as? [Int] == [1, 2])
        #expect((wire["updatedItems"] as? [[String: Any]])?.first?["at"] as? [Int] == [1, 2])
        #expect(update.base == base)
        #expect(try JSONDecoder().decode(ResultsUpdate<Item>.self, from: JSONEncoder().encode(update)) == update)
    }

    @Test("empty lists are left out, and a missing list reads as empty")
    func emptyLists() throws {
        let update = ResultsUpdate<Item>(
            version: version,
            content: .changes(
                base: base, .init(updatedItems: [.init(indexPath: IndexPath(item: 0, section: 0), entity: Item(1))])))
        let wire = try #require(try json(update)["changes"] as? [String: Any])
        #expect(Set(wire.keys) == ["updatedItems"])
        let decoded = try decode(
            #"{"format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6", "changes": {}}"#)
        #expect(decoded.content == .changes(base: base, .init()))
    }

    @Test("the article's example decodes")
    func designExample() throws {
        let entity = #"{"id": 1, "section": "Later", "score": 2, "title": "t"}"#
        let text = """
            { "format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6",
              "changes": {
                "deletedSections": [0],
                "insertedSections": [ { "index": 1, "name": "Later" } ],
                "deletedItems": [ [0, 3] ],
                "insertedItems": [ { "at": [1, 0], "entity": \(entity) } ],
                "movedItems": [ { "from": [0, 4], "to": [1, 2] } ],
                "updatedItems": [ { "at": [1, 2], "entity": \(entity) } ] } }
            """
        guard case .changes(_, let changes) = try decode(text).content else {
            Issue.record("a change set")
            return
        }
        #expect(
            changes.movedItems == [ItemMove(from: IndexPath(item: 4, section: 0), to: IndexPath(item: 2, section: 1))])
        #expect(changes.insertedItems.first?.entity == Item(1, section: "Later", score: 2, title: "t"))
    }

    @Test("another format number is an error that names it")
    func otherFormat() {
        #expect {
            try decode(#"{"format": 2, "version": "00000000000000aa-7", "base": null, "sections": []}"#)
        } throws: { error in
            String(describing: error).contains("format 2")
        }
        #expect(throws: DecodingError.self) {
            try decode(#"{"version": "00000000000000aa-7", "base": null, "sections": []}"#)
        }
    }

    @Test(
        "malformed updates do not decode",
        arguments: [
            #"{"format": 1, "version": "00000000000000aa-7", "base": null, "sect"#,
            #"{"format": 1, "version": "garbage", "base": null, "sections": []}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": null}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6"}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6", "changes": {"deletedItems": [[0, 1, 2]]}}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6", "changes": {"deletedItems": [[0, -1]]}}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": "00000000000000aa-6", "changes": {"insertedItems": [{"at": [0, 0]}]}}"#,
            #"{"format": 1, "version": "00000000000000aa-7", "base": null, "sections": [{"name": "a", "entities": [{"id": "x"}]}]}"#,
            "",
            "[]",
        ])
    func malformed(text: String) {
        #expect(throws: (any Error).self) { try decode(text) }
    }

    @Test("versions: string form, parsing and coding")
    func versions() throws {
        #expect(version.description == "00000000000000aa-7")
        #expect(ResultsVersion(version.description) == version)
        for garbage in [
            "", "7", "00000000000000aa-", "00000000000000aa7", "00000000000000AA-7", "0000000000000aa-7",
            "00000000000000aa-7x", "00000000000000aa--7", "00000000000000aa-99999999999999999999999",
            "zz000000000000aa-7",
        ] {
            #expect(ResultsVersion(garbage) == nil, "\(garbage)")
        }
        let data = try JSONEncoder().encode([version])
        #expect(String(decoding: data, as: UTF8.self) == #"["00000000000000aa-7"]"#)
        #expect(try JSONDecoder().decode([ResultsVersion].self, from: data) == [version])
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ResultsVersion].self, from: Data(#"["x"]"#.utf8))
        }
    }
}
