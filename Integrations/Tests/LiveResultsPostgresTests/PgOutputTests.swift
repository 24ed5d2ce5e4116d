import Foundation
import NIOCore
import Testing

@testable import LiveResultsPostgres

/// `pgoutput`'s messages read from bytes written as PostgreSQL's *Logical Replication Message Formats* says,
/// the text of columns as `row_to_json` would write them, and snapshots' visibility.
@Suite("PostgresChangeFeed: pgoutput messages, row JSON and snapshots")
struct PgOutputTests {
    /// Builds a message byte by byte.
    struct Bytes {
        var buffer = ByteBuffer()

        func tag(_ character: Character) -> Bytes { byte(character.asciiValue!) }
        func byte(_ value: UInt8) -> Bytes { with { $0.buffer.writeInteger(value) } }
        func int16(_ value: UInt16) -> Bytes { with { $0.buffer.writeInteger(value) } }
        func int32(_ value: UInt32) -> Bytes { with { $0.buffer.writeInteger(value) } }
        func int64(_ value: UInt64) -> Bytes { with { $0.buffer.writeInteger(value) } }
        func string(_ value: String) -> Bytes {
            with {
                $0.buffer.writeString(value)
                $0.buffer.writeInteger(UInt8(0))
            }
        }
        func text(_ value: String) -> Bytes {
            with {
                $0.buffer.writeInteger(UInt8(ascii: "t"))
                $0.buffer.writeInteger(UInt32(value.utf8.count))
                $0.buffer.writeString(value)
            }
        }
        func with(_ change: (inout Bytes) -> Void) -> Bytes {
            var copy = self
            change(&copy)
            return copy
        }
        func read() throws -> _PgOutputMessage {
            var buffer = buffer
            return try _PgOutputMessage.read(&buffer)
        }
    }

    @Test("Begin, Commit, Relation, Insert, Update with its old key, Delete, Truncate; Origin and Type ignored")
    func messages() throws {
        #expect(try Bytes().tag("B").int64(0x10).int64(1).int32(7514).read() == .begin(xid: 7514, finalLSN: 0x10))
        #expect(
            try Bytes().tag("C").byte(0).int64(0x10).int64(0x2_0000_0018).int64(1).read()
                == .commit(endLSN: 0x2_0000_0018))
        let relation = try Bytes().tag("R").int32(16384).string("public").string("todos").byte(UInt8(ascii: "d"))
            .int16(2).byte(1).string("id").int32(20).int32(UInt32(bitPattern: -1))
            .byte(0).string("title").int32(25).int32(UInt32(bitPattern: -1)).read()
        #expect(
            relation
                == .relation(
                    .init(
                        oid: 16384, schema: "public", name: "todos",
                        columns: [
                            .init(name: "id", typeOID: 20, isKey: true),
                            .init(name: "title", typeOID: 25, isKey: false),
                        ])))
        #expect(
            try Bytes().tag("I").int32(16384).tag("N").int16(2).text("42").text("Buy milk").read()
                == .insert(relation: 16384, new: [.text("42"), .text("Buy milk")]))
        #expect(
            try Bytes().tag("U").int32(16384).tag("K").int16(2).text("41").tag("n").tag("N").int16(2).text("42")
                .tag("u").read()
                == .update(relation: 16384, old: [.text("41"), .null], new: [.text("42"), .unchangedToast]))
        #expect(
            try Bytes().tag("U").int32(16384).tag("N").int16(1).tag("n").read()
                == .update(relation: 16384, old: nil, new: [.null]))
        #expect(
            try Bytes().tag("D").int32(16384).tag("K").int16(2).text("42").tag("n").read()
                == .delete(relation: 16384, old: [.text("42"), .null]))
        #expect(
            try Bytes().tag("T").int32(2).byte(0).int32(16384).int32(16390).read()
                == .truncate(relations: [16384, 16390]))
        #expect(try Bytes().tag("O").int64(1).string("origin").read() == .ignored)
        #expect(try Bytes().tag("Y").int32(600).string("public").string("point").read() == .ignored)
    }

    @Test("Truncated or unknown messages throw, never crash")
    func malformed() {
        #expect(throws: _PgOutputMessage.Malformed.self) { try Bytes().read() }
        #expect(throws: _PgOutputMessage.Malformed.self) { try Bytes().tag("B").int32(1).read() }
        #expect(throws: _PgOutputMessage.Malformed.self) { try Bytes().tag("Z").read() }
        #expect(throws: _PgOutputMessage.Malformed.self) {
            try Bytes().tag("I").int32(1).tag("N").int16(1).tag("t").int32(100).read()
        }
    }

    @Test(
        "Column text as row_to_json writes it",
        arguments: [
            (UInt32(20), "42", "42"), (23, "-7", "-7"), (1700, "3.14", "3.14"), (701, "NaN", "\"NaN\""),
            (701, "-Infinity", "\"-Infinity\""), (16, "t", "true"), (16, "f", "false"),
            (25, "a \"b\"\n", "\"a \\\"b\\\"\\n\""),
            (3802, "{\"a\": 1}", "{\"a\": 1}"), (1114, "2024-05-01 10:00:00", "\"2024-05-01T10:00:00\""),
            (1184, "2024-05-01 10:00:00+02", "\"2024-05-01T10:00:00+02:00\""),
            (1184, "2024-05-01 10:00:00.5+05:30", "\"2024-05-01T10:00:00.5+05:30\""), (2950, "a-b", "\"a-b\""),
        ])
    func columnJSON(type: UInt32, text: String, json: String) {
        #expect(_RowJSON.value(.text(text), typeOID: type) == json)
    }

    @Test("A row's JSON decodes like row_to_json's; an unchanged TOAST value makes it a row to fetch")
    func rowJSON() throws {
        let columns: [_PgOutputMessage.Relation.Column] = [
            .init(name: "id", typeOID: 20, isKey: true), .init(name: "title", typeOID: 25, isKey: false),
            .init(name: "project", typeOID: 25, isKey: false), .init(name: "priority", typeOID: 23, isKey: false),
        ]
        let json = try #require(
            _RowJSON.object(columns: columns, values: [.text("1"), .text("Milk"), .text("Home"), .text("2")]))
        #expect(
            try JSONDecoder().decode(Todo.self, from: Data(json.utf8))
                == Todo(id: 1, title: "Milk", project: "Home", priority: 2))
        #expect(
            _RowJSON.object(columns: columns, values: [.text("1"), .unchangedToast, .text("Home"), .text("2")]) == nil)
    }

    @Test("pg_visible_in_snapshot: below xmin seen, from xmax on not, running ones not; 32-bit xids widened")
    func snapshots() throws {
        let snapshot = try #require(_Snapshot("100:105:101,103"))
        #expect(snapshot.sees(99))
        #expect(snapshot.sees(100))
        #expect(!snapshot.sees(101))
        #expect(snapshot.sees(102))
        #expect(!snapshot.sees(103))
        #expect(!snapshot.sees(105))
        #expect(!snapshot.sees(200))
        #expect(_Snapshot("10:10:") == _Snapshot(xmin: 10, xmax: 10, running: []))
        #expect(_Snapshot("x") == nil)
        // Epoch 1: xmin 2^32 + 3, xmax 2^32 + 5, 2^32 + 4 running; the 32-bit 0xFFFF_FFF0 is in epoch 0.
        let wrapped = try #require(_Snapshot("4294967299:4294967301:4294967300"))
        #expect(wrapped.sees(3))
        #expect(!wrapped.sees(4))
        #expect(!wrapped.sees(5))
        #expect(wrapped.sees(0xFFFF_FFF0))
        #expect(!_Snapshot.none.sees(1))
    }

    @Test("A snapshot sees everything an earlier one saw; not what a later or concurrent one saw")
    func snapshotContainment() throws {
        let earlier = try #require(_Snapshot("100:105:101,103"))
        let later = try #require(_Snapshot("103:110:103,108"))
        #expect(later.seesEverything(seenBy: earlier))
        #expect(!earlier.seesEverything(seenBy: later))
        #expect(earlier.seesEverything(seenBy: earlier))
        #expect(earlier.seesEverything(seenBy: .none))
        // 101 ended between the two, so the second sees more; 104 runs in the second, which the first saw ended.
        let concurrent = try #require(_Snapshot("100:105:104"))
        #expect(!concurrent.seesEverything(seenBy: earlier))
        #expect(!earlier.seesEverything(seenBy: concurrent))
    }

    @Test("Log positions in PostgreSQL's text form")
    func logPositions() {
        #expect(_FeedReader.lsn("16/B374D848") == 0x16_B374_D848)
        #expect(_FeedReader.lsn("0/0") == 0)
        #expect(_FeedReader.lsn(_FeedReader.lsn(0x1_0000_0001)) == 0x1_0000_0001)
        #expect(_FeedReader.lsn("16B374D848") == nil)
        #expect(_FeedReader.lsn("1/123456789") == nil)
    }
}
