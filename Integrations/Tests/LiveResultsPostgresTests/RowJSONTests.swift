import Foundation
import LiveResults
import NIOConcurrencyHelpers
import LiveResultsTestSupport
import LiveResultsWireSupport
import PostgresNIO
import Testing

@testable import LiveResultsPostgres

/// A row kept whole, as the JSON it was decoded from (compared decoded, so that spacing does not matter).
struct RawRow: FetchableEntity, Decodable {
    var id: Int64
    var json: JSONValue

    init(from decoder: any Decoder) throws {
        json = try JSONValue(from: decoder)
        guard case .object(let fields) = json, case .integer(let id) = fields["id"] else {
            throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "no id"))
        }
        self.id = id
    }
}

@Suite("The change feed's row JSON: pgoutput's text form as row_to_json writes it")
struct RowJSONTests {
    @Test(
        "Arrays, booleans, numbers and JSON as row_to_json writes them",
        arguments: [
            (UInt32(1007), "{1,2,3}", "[1,2,3]"), (1007, "{}", "[]"), (1016, "{-9,NULL}", "[-9,null]"),
            (1007, "{{1,2},{3,4}}", "[[1,2],[3,4]]"), (1007, "[0:1]={5,6}", "[5,6]"),
            (
                1009, #"{a,"b c",NULL,"NULL","x\"y","back\\slash",""}"#,
                #"["a","b c",null,"NULL","x\"y","back\\slash",""]"#
            ),
            (1009, #"{{"a,b",c},{NULL,"}"}}"#, #"[["a,b","c"],[null,"}"]]"#),
            (1000, "{t,f,NULL}", "[true,false,null]"), (1231, "{1.50,NaN,-Infinity}", #"[1.50,"NaN","-Infinity"]"#),
            (1022, "{1e+100,Infinity}", #"[1e+100,"Infinity"]"#),
            (3807, #"{"{\"a\": 1}",NULL,"[1, \"x\"]"}"#, #"[{"a": 1},null,[1, "x"]]"#),
            (1185, #"{"2024-05-01 10:00:00+02"}"#, #"["2024-05-01T10:00:00+02:00"]"#),
            (2951, "{a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11}", #"["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"]"#),
            (1007, "{1,2", #""{1,2""#), (16, "t", "true"), (26, "42", #""42""#), (1700, "-0.5", "-0.5"),
            (114, #"{"a" : [1, 2]}"#, #"{"a" : [1, 2]}"#),
        ])
    func columnJSON(type: UInt32, text: String, json: String) {
        #expect(_RowJSON.value(.text(text), typeOID: type) == json)
    }

    /// PostgreSQL sends at most 6 dimensions; deeper nesting (a faulty or hostile server) is kept as text, and
    /// 100,000 levels do not take the stack.
    @Test("Arrays nested deeper than PostgreSQL's 6 dimensions stay text")
    func deepArrays() {
        func nested(_ depth: Int) -> String {
            String(repeating: "{", count: depth) + "1" + String(repeating: "}", count: depth)
        }
        let six = String(repeating: "[", count: 6) + "1" + String(repeating: "]", count: 6)
        #expect(_RowJSON.value(.text(nested(6)), typeOID: 1007) == six)
        #expect(_RowJSON.value(.text(nested(7)), typeOID: 1007) == "\"\(nested(7))\"")
        let deep = nested(100_000)
        #expect(_RowJSON.value(.text(deep), typeOID: 1007)?.hasPrefix("\"{{{") == true)
    }

    /// The same row read by a fetch (`row_to_json`) and by the feed (`pgoutput`'s text form) decodes to the same
    /// JSON, for arrays with `NULL`s and quoting, `json`, `jsonb`, booleans, numbers and the types that stay text.
    @Test("End to end: the feed's JSON of a row equals row_to_json's, arrays and JSON included")
    func feedMatchesRowToJSON() async throws {
        try await withDurableDatabase { _, client, _ in
            try await client.query(
                """
                CREATE TABLE typed (
                    id bigserial PRIMARY KEY, ints int[], bigs int8[], texts text[], grid int[][], flags bool[],
                    amounts numeric[], doubles float8[], doc json, docb jsonb, docs jsonb[], flag bool,
                    amount numeric, ratio float8, small int2, stamp timestamptz, stamps timestamptz[], day date,
                    label varchar(20), uid uuid, uids uuid[], bytes bytea, span interval, nothing text
                )
                """)
            let feed = PostgresChangeFeed(client: client, publication: "liveresults")
            try await feed.setUp(tables: ["typed"])
            let table = PostgresLiveTable<RawRow>(client: client, table: "typed", changes: .replication(feed))
            let controller = FetchedResultsController(
                definition: table.fetchDefinition(), sortDescriptors: [SortDescriptor(\RawRow.id)])
            let subscription = controller.observe(table)
            defer { subscription.cancel() }
            try await controller.performFetch()
            try await client.query(
                #"""
                INSERT INTO typed (ints, bigs, texts, grid, flags, amounts, doubles, doc, docb, docs, flag, amount, ratio,
                    small, stamp, stamps, day, label, uid, uids, bytes, span, nothing)
                VALUES ('{1,2,3}', '{-9,NULL}', ARRAY['a', 'b c', NULL, 'NULL', 'x"y', 'back\slash', '', '{}', 'é'],
                    '{{1,2},{3,4}}', '{t,f,NULL}', '{1.50,NaN}', '{0.1,1e100,-Infinity}', '{"a" : [1, 2]}',
                    '{"b": {"c": null}, "a": 1}', ARRAY['{"x": 1}'::jsonb, NULL], true, 12.500, 2.5, -3,
                    '2024-05-01 10:00:00.25+02', ARRAY['2024-05-01 10:00:00+02'::timestamptz], '2024-05-01', 'tag',
                    'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', ARRAY['a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'::uuid],
                    '\x0102', '1 day 02:00:00', NULL)
                """#)
            #expect(await eventually { controller.fetchedObjects.count == 1 })
            let fromFeed = try #require(controller.fetchedObjects.first)
            let fromSQL = try #require(
                try await client.query("SELECT row_to_json(typed)::text FROM typed").collect().first?.decode(
                    String.self))
            let expected = try JSONDecoder().decode(JSONValue.self, from: Data(fromSQL.utf8))
            #expect(fromFeed.json == expected, "row_to_json: \(fromSQL)")
            // A second controller's fetch reads the same row with row_to_json: the two entities are equal.
            try await controller.performFetch()
            #expect(controller.fetchedObjects.first == fromFeed)
        }
    }
}
