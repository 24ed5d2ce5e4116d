import LiveResultsServing
import LiveResultsTesting
import Testing

@Suite("select= parser")
struct SelectParserTests {
    private static func column(_ name: String, alias: String? = nil) -> SelectItem {
        .column(SelectColumn(name: name, alias: alias))
    }

    private static func embedded(
        _ relation: String, alias: String? = nil, hint: String? = nil, join: EmbeddedJoin? = nil,
        spread: Bool = false, _ items: [SelectItem]
    ) -> SelectItem {
        .embedded(
            EmbeddedResource(
                relation: relation, alias: alias, hint: hint, join: join, isSpread: spread, select: SelectList(items)))
    }

    /// PostgREST's own examples (its parser's doctests and its documentation), with what they parse to.
    static let postgRESTExamples: [(String, [SelectItem])] = [
        ("id", [column("id")]),
        ("name,location", [column("name"), column("location")]),
        ("client(id)", [embedded("client", [column("id")])]),
        ("*,client(*,nested(*))", [.all, embedded("client", [.all, embedded("nested", [.all])])]),
        ("*,...client(*),other(*)", [.all, embedded("client", spread: true, [.all]), embedded("other", [.all])]),
        ("", []),
        ("rel(*)", [embedded("rel", [.all])]),
        ("alias:rel(*)", [embedded("rel", alias: "alias", [.all])]),
        ("rel!hint(*)", [embedded("rel", hint: "hint", [.all])]),
        ("rel!inner(*)", [embedded("rel", join: .inner, [.all])]),
        ("rel!left(*)", [embedded("rel", join: .left, [.all])]),
        ("rel!hint!inner(*)", [embedded("rel", hint: "hint", join: .inner, [.all])]),
        ("alias:rel!inner!hint(*)", [embedded("rel", alias: "alias", hint: "hint", join: .inner, [.all])]),
        ("alias:name", [column("name", alias: "alias")]),
        ("*", [.all]),
        ("identifier with spaces", [column("identifier with spaces")]),
        ("identifier-with-dashes", [column("identifier-with-dashes")]),
        ("\":\"", [column(":")]),
        (" id , title ", [column("id"), column("title")]),
        (
            "id,title,assignee:people(id,name)",
            [column("id"), column("title"), embedded("people", alias: "assignee", [column("id"), column("name")])]
        ),
        (
            "id,name,todos(id,title,priority,projects(name,owners!inner(*)))",
            [
                column("id"), column("name"),
                embedded(
                    "todos",
                    [
                        column("id"), column("title"), column("priority"),
                        embedded("projects", [column("name"), embedded("owners", join: .inner, [.all])]),
                    ]),
            ]
        ),
    ]

    @Test("PostgREST's examples parse as PostgREST parses them", arguments: postgRESTExamples.indices)
    func postgRESTExample(_ index: Int) throws {
        let (text, items) = Self.postgRESTExamples[index]
        let parsed = try SelectList(parsing: text)
        #expect(parsed.items == items, "\(text)")
        #expect(try SelectList(parsing: parsed.description) == parsed, "\(text) → \(parsed.description)")
    }

    @Test("JSON paths, casts and aggregates are kept")
    func pathsCastsAggregates() throws {
        let parsed = try SelectList(parsing: "alias:name->jsonpath::cast,data->>0,amount.sum(),count()")
        #expect(
            parsed.items == [
                .column(
                    SelectColumn(
                        name: "name", alias: "alias",
                        jsonPath: [JSONPathStep(asText: false, operand: "jsonpath", isIndex: false)], cast: "cast")),
                .column(
                    SelectColumn(name: "data", jsonPath: [JSONPathStep(asText: true, operand: "+0", isIndex: true)])),
                .column(SelectColumn(name: "amount", aggregate: .sum)),
                .column(SelectColumn(name: "*", aggregate: .count)),
            ])
    }

    /// PostgREST's parse errors: the message names the parameter and the column of the first character that
    /// does not fit.
    static let errors: [(text: String, column: Int, unexpected: String)] = [
        ("id,clients(name[])", 16, "unexpected \"[\""),
        ("data->>-78xy", 11, "unexpected \"x\""),
        ("name!hint", 5, "unexpected \"!\""),
        ("*!hint", 2, "unexpected \"!\""),
        ("name::", 7, "unexpected end of input"),
        ("id,", 4, "unexpected end of input"),
        ("rel(id", 7, "unexpected end of input"),
        ("\"open", 6, "unexpected end of input"),
        // PostgREST's own tests, with their details.
        (
            "data->(!@#$%^&*_d->>!@#$%^&*_e::integer", 7,
            "unexpected \"(\" expecting \"-\", digit or any non reserved character different from: .,>()"
        ),
        ("data->>--34", 9, "unexpected \"-\" expecting digit"),
    ]

    @Test("Errors are PGRST100 with PostgREST's message", arguments: errors.indices)
    func error(_ index: Int) {
        let (text, column, unexpected) = Self.errors[index]
        #expect {
            try SelectList(parsing: text)
        } throws: { error in
            guard let error = error as? PostgRESTError else { return false }
            return error.status == 400 && error.code == "PGRST100"
                && error.message == "\"failed to parse select parameter (\(text))\" (line 1, column \(column))"
                && (error.details == unexpected || error.details?.hasPrefix(unexpected + " ") == true)
        }
    }

    @Test("Random select lists survive a round trip through their text")
    func randomRoundTrips() throws {
        var random = SeededRandom(seed: 20_20)
        let names = [
            "id", "title", "a b", "x-y", "$cost", "_", "日本", "with,comma", "q\"uote", "par(en", "c:d", "count",
        ]
        func name() -> String { names[Int.random(in: 0..<names.count, using: &random)] }
        func list(depth: Int) -> SelectList {
            var items: [SelectItem] = []
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<(depth < 3 ? 5 : 3), using: &random) {
                case 0: items.append(.all)
                case 1: items.append(.column(SelectColumn(name: name())))
                case 2: items.append(.column(SelectColumn(name: name(), alias: name())))
                default:
                    var relation = name()
                    if relation == "count" { relation = "counts" }
                    let joins: [EmbeddedJoin?] = [nil, .left, .inner]
                    items.append(
                        .embedded(
                            EmbeddedResource(
                                relation: relation, alias: Bool.random(using: &random) ? name() : nil,
                                hint: Bool.random(using: &random) ? "fk_\(Int.random(in: 0..<9, using: &random))" : nil,
                                join: joins[Int.random(in: 0..<3, using: &random)], select: list(depth: depth + 1))))
                }
            }
            return SelectList(items)
        }
        for step in 0..<500 {
            let value = list(depth: 0)
            let text = value.description
            let parsed = try SelectList(parsing: text)
            #expect(parsed == value, "step \(step): \(text)")
            if parsed != value { return }
        }
    }
}
