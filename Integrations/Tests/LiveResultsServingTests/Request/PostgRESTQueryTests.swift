import LiveResults
import LiveResultsServing
import Testing

@Suite("PostgREST query parameters")
struct PostgRESTQueryTests {
    private func query(_ parameters: [(String, String)]) throws -> PostgRESTQuery {
        try PostgRESTQuery(parameters: parameters, table: "rows")
    }

    private func refusal(_ parameters: [(String, String)]) -> PostgRESTError? {
        do {
            try query(parameters).validate(for: Row.self)
            return nil
        } catch let error as PostgRESTError {
            return error
        } catch {
            return nil
        }
    }

    @Test("select, sections and columns are not filters; the rest goes to the live query")
    func sorting() throws {
        let query = try query([
            ("select", "id,title"), ("project", "eq.Home"), ("sections", "project"), ("order", "priority.desc"),
            ("limit", "20"), ("columns", "\"title\",project"),
        ])
        #expect(query.select.description == "id,title")
        #expect(query.sections == "project")
        #expect(query.columns == ["title", "project"])
        #expect(query.queryParameters.map(\.0) == ["project", "order", "limit"])
        try query.validate(for: Row.self)
    }

    @Test("Parameters addressed to embedded resources are kept on them, at any depth")
    func embeddedParameters() throws {
        let query = try query([
            ("select", "id,owner:people(name,pets(name))"), ("owner.order", "name.desc"), ("owner.limit", "3"),
            ("owner.offset", "1"), ("owner.name", "eq.Ann"), ("owner.pets.limit", "2"),
        ])
        let owner = try #require(query.select.embeddedResources.first)
        #expect(owner.parameters.order == "name.desc")
        #expect(owner.parameters.limit == "3")
        #expect(owner.parameters.offset == "1")
        #expect(owner.parameters.filters == [EmbeddedFilter(column: "name", condition: "eq.Ann")])
        #expect(owner.select.embeddedResources.first?.parameters.limit == "2")
        #expect(query.queryParameters.isEmpty)
    }

    @Test("A parameter for a resource select= does not embed is PGRST108")
    func notEmbedded() {
        #expect(throws: PostgRESTError.notEmbedded("owner")) { try query([("owner.limit", "3")]) }
        #expect(throws: PostgRESTError.notEmbedded("people", alias: "owner")) {
            try query([("select", "owner:people(*)"), ("people.limit", "3")])
        }
    }

    @Test("Unknown columns are 42703, as PostgreSQL names them")
    func unknownColumns() {
        #expect(refusal([("select", "id,nope")]) == .undefinedColumn("nope", of: "rows"))
        #expect(refusal([("nope", "eq.1")]) == .undefinedColumn("nope", of: "rows"))
        #expect(refusal([("order", "nope.desc")]) == .undefinedColumn("nope", of: "rows"))
        #expect(refusal([("nope", "eq.1")])?.message == "column rows.nope does not exist")
    }

    @Test("An embedded resource the route does not declare is PGRST200, naming it")
    func unknownRelationship() {
        let error = refusal([("select", "id,assignee:people!assignee_id(name)")])
        #expect(error?.code == "PGRST200")
        #expect(error?.status == 400)
        #expect(error?.message == "Could not find a relationship between 'rows' and 'people' in the schema cache")
        #expect(
            error?.details
                == "Searched for a foreign key relationship between 'rows' and 'people' using the hint 'assignee_id' "
                + "in the schema 'public', but no matches were found.")
    }

    @Test("An unknown operator does not parse (PGRST100); one PostgREST has and this server does not is PGRST127")
    func operators() {
        let unknown = refusal([("title", "noop.0")])
        #expect(unknown?.code == "PGRST100")
        #expect(unknown?.message == "\"failed to parse filter (noop.0)\" (line 1, column 1)")
        #expect(unknown?.details == "unexpected \"n\" expecting \"not\" or operator (eq, gt, ...)")
        #expect(refusal([("title", "like.*a*")])?.code == "PGRST127")
        #expect(refusal([("title", "not.like.*a*")])?.code == "PGRST127")
        #expect(refusal([("title", "not.eq.a"), ("priority", "not.in.(1,2)"), ("project", "not.is.null")]) == nil)
        #expect(refusal([("or", "(id.eq.1,id.eq.2)")])?.code == "PGRST127")
        #expect(refusal([("title", "eq.a"), ("priority", "in.(1,2)"), ("project", "is.null")]) == nil)
    }

    @Test("JSON paths, casts and aggregates are PGRST127")
    func unservedColumns() {
        #expect(refusal([("select", "title::text")])?.code == "PGRST127")
        #expect(refusal([("select", "count()")])?.code == "PGRST127")
    }

    @Test("columns= parses as PostgREST's column list")
    func columns() throws {
        #expect(
            try query([("columns", "\"title\",\"project\", priority")]).columns == ["title", "project", "priority"])
        #expect(throws: PostgRESTError.self) { try query([("columns", "title,")]) }
        // PostgREST's own test of an empty list.
        #expect(
            throws: PostgRESTError.parse(
                "columns parameter", text: "", column: 1,
                details: "unexpected end of input expecting field name (* or [a..z0..9_$])")
        ) { try query([("columns", "")]) }
    }
}
