import Foundation
import LiveResultsTestSupport
import LiveResultsTesting
import Testing

@testable import LiveResultsPostgres

/// Decoding a feed's row straight from its columns gives what `JSONDecoder` gives for the row's JSON: the same
/// value, or an error.
@Suite("The change feed's rows decoded from their columns")
struct ColumnDecoderTests {
    enum Mood: String, Codable, Equatable { case calm, busy }

    /// The shape the column decoder takes.
    struct Flat: Codable, Equatable {
        var id: Int64
        var title: String
        var priority: Int
        var small: Int16
        var done: Bool
        var score: Double
        var assignee_id: Int64?
        var mood: Mood
        var key: UUID?
    }

    /// Shapes it leaves to `JSONDecoder`: a date, a float, a nested object.
    struct Dated: Codable, Equatable {
        var id: Int64
        var at: Date
    }

    struct Floating: Codable, Equatable {
        var id: Int64
        var ratio: Float
    }

    struct Nested: Codable, Equatable {
        struct Tags: Codable, Equatable { var a: Int }
        var id: Int64
        var tags: Tags
    }

    typealias Column = _PgOutputMessage.Relation.Column

    static let columns: [Column] = [
        ("id", 20), ("title", 25), ("priority", 23), ("small", 21), ("done", 16), ("score", 701),
        ("assignee_id", 20), ("mood", 1043), ("key", 2950), ("at", 1184), ("ratio", 700), ("tags", 3802),
    ].map { Column(name: $0.0, typeOID: $0.1, isKey: $0.0 == "id") }

    /// A random text (or `NULL`) for a column of `typeOID`, among them values that do not fit its Swift type.
    static func value(_ typeOID: UInt32, using random: inout SeededGenerator) -> _PgOutputMessage.Column {
        if Int.random(in: 0..<12, using: &random) == 0 { return .null }
        let texts: [String] =
            switch typeOID {
            case 20: ["0", "-9223372036854775808", "42", "9223372036854775807"]
            case 23: ["7", "-1", "2147483647"]
            case 21: ["3", "-32768", "32767", "40000"]
            case 16: ["t", "f"]
            case 701, 700: ["1.5", "-0.25", "1e+20", "NaN", "Infinity", "-Infinity", "0.1", "3"]
            case 1043: ["calm", "busy", "other"]
            case 2950: ["a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "not a uuid"]
            case 1184: ["2024-05-01 10:00:00+02", "2024-05-01 10:00:00.5+00"]
            case 3802: [#"{"a": 1}"#, #"{"a": "x"}"#]
            default: ["", "plain", "quote \" and \\ backslash", "line\nbreak", "été 日本", "\u{1}"]
            }
        return .text(texts.randomElement(using: &random)!)
    }

    /// What each route gives, as text: the value, or that it threw.
    static func outcomes<T: Decodable & Equatable>(
        _: T.Type, row: _RowColumns, decoder: JSONDecoder
    ) throws -> (columns: Result<T, any Error>, json: Result<T, any Error>) {
        let json = try row.json
        return (Result { try row.decode(as: T.self, with: decoder) }, Result { try decoder.decode(T.self, from: json) })
    }

    static func agree<T: Decodable & Equatable>(
        _ type: T.Type, row: _RowColumns, decoder: JSONDecoder, _ comment: Comment
    ) throws {
        let (columns, json) = try outcomes(type, row: row, decoder: decoder)
        switch (columns, json) {
        case (.success(let a), .success(let b)): #expect(a == b, comment)
        case (.failure, .failure): break
        default: Issue.record("columns \(columns), JSON \(json): \(comment)")
        }
    }

    @Test("random rows: the same value as JSONDecoder, or an error as it gives one", arguments: [1, 2, 3] as [UInt64])
    func randomRowsAgree(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        for step in 0..<500 {
            let values = Self.columns.map { Self.value($0.typeOID, using: &random) }
            let row = _RowColumns(columns: Self.columns, values: values)
            let comment: Comment = "seed \(seed), step \(step), \(values)"
            try Self.agree(Flat.self, row: row, decoder: decoder, comment)
            try Self.agree(Dated.self, row: row, decoder: decoder, comment)
            try Self.agree(Floating.self, row: row, decoder: decoder, comment)
            try Self.agree(Nested.self, row: row, decoder: decoder, comment)
        }
    }

    @Test("a flat row is read from its columns, without its JSON; the other shapes are not")
    func theFlatShapeIsReadFromColumns() throws {
        let values: [_PgOutputMessage.Column] = [
            .text("1"), .text("a \"b\""), .text("3"), .text("4"), .text("t"), .text("0.1"), .null, .text("busy"),
            .text("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11"), .text("2024-05-01 10:00:00+02"), .text("0.5"),
            .text(#"{"a": 1}"#),
        ]
        let row = _RowColumns(columns: Self.columns, values: values)
        let direct = try Flat(from: _ColumnDecoder(row: row, column: nil, userInfo: [:]))
        #expect(
            direct
                == Flat(
                    id: 1, title: "a \"b\"", priority: 3, small: 4, done: true, score: 0.1, assignee_id: nil,
                    mood: .busy, key: UUID(uuidString: "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")))
        #expect(throws: _ColumnDecoder.Unsupported.self) {
            try Dated(from: _ColumnDecoder(row: row, column: nil, userInfo: [:]))
        }
        #expect(throws: _ColumnDecoder.Unsupported.self) {
            try Floating(from: _ColumnDecoder(row: row, column: nil, userInfo: [:]))
        }
        #expect(throws: _ColumnDecoder.Unsupported.self) {
            try Nested(from: _ColumnDecoder(row: row, column: nil, userInfo: [:]))
        }
        let snake = JSONDecoder()
        snake.keyDecodingStrategy = .convertFromSnakeCase
        // Another key strategy: JSONDecoder decides (here, no key `assignee_id` once converted: the optional is nil).
        #expect(try row.decode(as: Flat.self, with: snake) == (try snake.decode(Flat.self, from: try row.json)))
    }
}
