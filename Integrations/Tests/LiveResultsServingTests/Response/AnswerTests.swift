import Foundation
import LiveResultsServing
import Testing

@Suite("Answers: Content-Range, statuses, rows, errors")
struct AnswerTests {
    private static let rows = (1...5).map { Row(id: Int64($0), title: "t\($0)", project: "p", priority: $0) }

    private func header(_ answer: PostgRESTAnswer, _ name: String) -> String? {
        answer.headers.first { $0.name == name }?.value
    }

    private func json(_ answer: PostgRESTAnswer) throws -> Any {
        try JSONSerialization.jsonObject(with: try #require(answer.body))
    }

    @Test(
        "Content-Range as PostgREST writes it",
        arguments: [
            (0, 10, nil, "0-9/*", 200), (5, 10, nil, "5-14/*", 200), (0, 0, nil, "*/*", 200),
            (0, 10, 57, "0-9/57", 206),
            (0, 57, 57, "0-56/57", 200), (0, 0, 0, "*/0", 200), (57, 0, 57, "*/57", 206), (60, 0, 57, "*/57", 416),
        ] as [(Int, Int, Int?, String, Int)])
    func contentRange(_ offset: Int, _ count: Int, _ total: Int?, _ header: String, _ status: Int) {
        let range = ContentRange(offset: offset, count: count, total: total)
        #expect(range.header == header)
        #expect(range.status == status)
    }

    @Test("A read: an array in order, with its range; 206 when counted and partial")
    func read() throws {
        let answer = try PostgRESTAnswer.read(
            rows: Self.rows[1..<3], offset: 1, total: 5, format: .array,
            preferences: PostgRESTPreferences(headers: ["count=exact"]),
            encoder: RowEncoder<Row>(select: try SelectList(parsing: "title,rank:priority")))
        #expect(answer.status == 206)
        #expect(header(answer, "Content-Range") == "1-2/5")
        #expect(header(answer, "Preference-Applied") == "count=exact")
        #expect(
            String(decoding: try #require(answer.body), as: UTF8.self)
                == #"[{"title":"t2","rank":2},{"title":"t3","rank":3}]"#)
    }

    @Test("One object, or 406 PGRST116 with PostgREST's message and details")
    func object() throws {
        let one = try PostgRESTAnswer.read(
            rows: Self.rows[0..<1], offset: 0, total: nil, format: .object,
            preferences: PostgRESTPreferences(headers: []), encoder: RowEncoder<Row>())
        #expect(one.status == 200)
        #expect((try json(one) as? [String: Any])?["title"] as? String == "t1")
        for count in [0, 2] {
            #expect(throws: PostgRESTError.singularity(rows: count)) {
                try PostgRESTAnswer.read(
                    rows: Self.rows[0..<count], offset: 0, total: nil, format: .object,
                    preferences: PostgRESTPreferences(headers: []), encoder: RowEncoder<Row>())
            }
        }
        let error = PostgRESTError.singularity(rows: 0)
        #expect(error.status == 406)
        #expect(
            String(decoding: error.body(), as: UTF8.self)
                == #"{"code":"PGRST116","message":"Cannot coerce the result to a single JSON object","details":"The result contains 0 rows","hint":null}"#
        )
    }

    @Test("An offset past the counted total is 416 PGRST103")
    func outOfRange() {
        #expect(throws: PostgRESTError.rangeNotSatisfiable(offset: 9, total: 5)) {
            try PostgRESTAnswer.read(
                rows: Self.rows[0..<0], offset: 9, total: 5, format: .array,
                preferences: PostgRESTPreferences(headers: ["count=exact"]), encoder: RowEncoder<Row>())
        }
    }

    @Test("* gives the columns in the table's order")
    func allColumns() throws {
        let object = try RowEncoder<Row>().object(Self.rows[0])
        #expect(String(decoding: object, as: UTF8.self) == #"{"id":1,"title":"t1","project":"p","priority":1}"#)
        let twice = try RowEncoder<Row>(select: try SelectList(parsing: "priority,*")).object(Self.rows[0])
        #expect(String(decoding: twice, as: UTF8.self) == #"{"priority":1,"id":1,"title":"t1","project":"p"}"#)
    }

    @Test("Writes: 201 for inserts, 200 with the rows or 204 for updates and deletes")
    func writes() throws {
        let encoder = RowEncoder<Row>()
        func answer(_ write: PostgRESTAnswer.Write, _ prefer: [String], rows: [Row] = Array(Self.rows[0..<2]))
            throws -> PostgRESTAnswer
        {
            try PostgRESTAnswer.write(
                write, rows: rows, format: .array, preferences: PostgRESTPreferences(headers: prefer), encoder: encoder)
        }
        let represented = try answer(.insert(array: false), ["return=representation"], rows: [Self.rows[0]])
        #expect(represented.status == 201)
        #expect((try json(represented) as? [Any])?.count == 1)
        #expect(header(represented, "Content-Range") == "*/*")
        let minimal = try answer(.insert(array: true), ["return=minimal", "count=exact"])
        #expect(minimal.status == 201)
        #expect(minimal.body == nil)
        #expect(header(minimal, "Content-Range") == "*/2")
        let plainObject = try answer(.insert(array: false), [], rows: [Self.rows[0]])
        #expect((try json(plainObject) as? [String: Any])?["id"] as? Int == 1)
        let plainArray = try answer(.insert(array: true), [])
        #expect((try json(plainArray) as? [Any])?.count == 2)
        let update = try answer(.update, ["return=representation", "count=exact"])
        #expect(update.status == 200)
        #expect(header(update, "Content-Range") == "0-1/2")
        #expect(try answer(.update, []).status == 204)
        #expect(try answer(.delete, []).body == nil)
        #expect(try answer(.delete, ["return=representation"]).status == 200)
        #expect(header(try answer(.delete, ["count=exact"]), "Content-Range") == "*/2")
    }

    @Test("Error bodies hold code, message, details and hint, null when absent")
    func errorBody() throws {
        let error = PostgRESTError.undefinedColumn("x", of: "todos")
        let object = try #require(try JSONSerialization.jsonObject(with: error.body()) as? [String: Any])
        #expect(object["code"] as? String == "42703")
        #expect(object["message"] as? String == "column todos.x does not exist")
        #expect(object["details"] is NSNull)
        #expect(object["hint"] is NSNull)
        #expect(error.responseHeaders().contains { $0.name == "Proxy-Status" && $0.value == "PostgREST; error=42703" })
        #expect(
            String(
                decoding: PostgRESTError(status: 400, code: "X", message: "a \"quote\" / slash").body(), as: UTF8.self)
                == #"{"code":"X","message":"a \"quote\" / slash","details":null,"hint":null}"#)
    }
}
