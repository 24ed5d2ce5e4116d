import Foundation
import LiveResults
import Testing

@Suite("Live query requests: PostgREST's syntax, checked and normalised")
struct LiveQueryRequestTests {
    let rules = LiveQueryRules(
        filters: ["project", "priority", "title", "score", "done"], orders: ["priority", "title", "id"],
        sectionedBy: "project", defaultOrder: [LiveQueryOrdering(column: "priority")], maximumLimit: 100)

    func request(_ query: String) throws(LiveQueryError) -> LiveQueryRequest<QueryRow> {
        let items = query.split(separator: "&").map { part -> (String, String) in
            let pair = part.split(separator: "=", maxSplits: 1)
            return (String(pair[0]), pair.count > 1 ? String(pair[1]) : "")
        }
        return try LiveQueryRequest(parameters: items, rules: rules)
    }

    func refusal(_ query: String) -> LiveQueryError? {
        do {
            _ = try request(query)
            return nil
        } catch {
            return error
        }
    }

    @Test("every operator reads its value as the column's kind")
    func operators() throws {
        let read = try request(
            "project=eq.home&priority=lt.3&score=gte.1.5&title=neq.x&done=is.null&priority=gt.0&priority=lte.9")
        #expect(
            read.query.filters.map(\.description).sorted() == [
                "done=is.null", "priority=gt.0", "priority=lt.3", "priority=lte.9", "project=eq.\"home\"",
                "score=gte.1.5", "title=neq.\"x\"",
            ])
        #expect(read.window == .range(offset: 0, limit: 100))
        let booleans = try request("done=eq.true")
        #expect(booleans.query.filters == [LiveQueryFilter(column: "done", condition: .equal(.boolean(true)))])
    }

    @Test("each condition's shorthand is the filter a request reads")
    func shorthands() throws {
        let read = try request(
            "project=eq.home&priority=lt.3&score=gte.1.5&title=neq.x&done=is.null&priority=gt.0&priority=lte.9"
                + "&project=in.(a,b)")
        let written: [LiveQueryFilter] = [
            .equal("project", "home"), .lessThan("priority", 3), .greaterThanOrEqual("score", 1.5),
            .notEqual("title", "x"), .isNull("done"), .greaterThan("priority", 0), .lessThanOrEqual("priority", 9),
            .in("project", ["a", "b"]),
        ]
        #expect(Set(read.query.filters) == Set(written))
        #expect(
            LiveQueryFilter.greaterThanOrEqual("priority", 3)
                == LiveQueryFilter(column: "priority", condition: .greaterThanOrEqual(.integer(3))))
    }

    @Test("queries equal after normalising share a key: parameter order, in lists, whitespace, repeats")
    func normalising() throws {
        let one = try request("priority=in.(3,1,2)&project=eq.home&order=priority.desc")
        let two = try request("order=priority.desc,id&project=eq.home&priority=in.( 2 ,1,3,3)&project=eq.home")
        #expect(one.query.key == two.query.key)
        #expect(one.query == two.query)
        #expect(one.query.order.map(\.description) == ["priority.desc", "id.asc"])
        let other = try request("priority=in.(3,1)&project=eq.home&order=priority.desc")
        #expect(other.query.key != one.query.key)
        // The default order, and the id ending it.
        #expect(try request("").query.order.map(\.description) == ["priority.asc", "id.asc"])
        #expect(try request("order=id.desc,priority").query.order.map(\.description) == ["id.desc"])
    }

    @Test("in lists: quoted elements keep commas, parentheses and spaces; empty lists match nothing")
    func inLists() throws {
        let read = try request(#"title=in.("a,b", "(c)",d ,"say \"hi\"")"#)
        #expect(read.query.filters[0].condition == .in([.text("(c)"), .text("a,b"), .text("d"), .text("say \"hi\"")]))
        let empty = try request("project=in.()")
        #expect(empty.query.filters[0].condition == .in([]))
        #expect(!empty.query.isIncluded(QueryRow(id: 1, project: "", priority: 0, title: "", score: 0, done: nil)))
        #expect(refusal(#"title=in.("a"#)?.parameter == "title")
        #expect(refusal("title=in.a,b")?.parameter == "title")
    }

    @Test("bad input is refused with the parameter's name first")
    func badInput() {
        let cases: [(String, String)] = [
            ("owner=eq.1", "owner"),  // not an allowed column
            ("id=eq.1", "id"),  // a column, but not one to filter on
            ("priority=like.1", "priority"),  // unknown operator
            ("priority=eq.abc", "priority"),  // does not convert
            ("priority=3", "priority"),  // no operator
            ("score=eq.nan", "score"),
            ("done=eq.yes", "done"),
            ("priority=is.3", "priority"),
            ("priority=in.(1,x)", "priority"),
            ("limit=-1", "limit"), ("limit=101", "limit"), ("limit=abc", "limit"), ("offset=-3", "offset"),
            ("limit=1&limit=2", "limit"), ("order=priority&order=title", "order"),
            ("order=score.asc", "order"), ("order=priority.up", "order"), ("order=", "order"),
        ]
        for (query, parameter) in cases {
            let error = refusal(query)
            #expect(error?.parameter == parameter, "\(query)")
            #expect(error?.description.hasPrefix(parameter) == true, "\(query)")
        }
    }

    @Test("an in list over the maximum is refused; 10,000 values are refused before they are read")
    func longLists() throws {
        let values = (0..<10_000).map(String.init).joined(separator: ",")
        #expect(refusal("priority=in.(\(values))")?.problem.contains("at most 1000") == true)
        let thousand = (0..<1_000).map(String.init).joined(separator: ",")
        #expect(try request("priority=in.(\(thousand))").query.filters[0].condition.values.count == 1_000)
    }

    @Test("values are data, never syntax: SQL, percent signs and unicode are kept as written")
    func values() throws {
        let sql = try request("title=eq.'; DROP TABLE todos; --")
        #expect(sql.query.filters[0].condition == .equal(.text("'; DROP TABLE todos; --")))
        let unicode = try request("project=eq.日本語 ✓&title=eq.100%")
        #expect(unicode.query.filters.map(\.condition).contains(.equal(.text("日本語 ✓"))))
        #expect(unicode.query.filters.map(\.condition).contains(.equal(.text("100%"))))
    }

    @Test("the window: limit and offset, the maximum without a limit")
    func window() throws {
        #expect(try request("limit=20&offset=40").window == .range(offset: 40, limit: 20))
        #expect(try request("offset=5").window == .range(offset: 5, limit: 100))
        #expect(try request("limit=0").window == .range(offset: 0, limit: 0))
        #expect(try request("offset=1000000").window == .range(offset: 1_000_000, limit: 100))
    }

    @Test("conditions added by the server AND with the client's and change the key")
    func conditions() throws {
        let items = [("project", "eq.home")]
        let mine = try LiveQueryRequest<QueryRow>(
            parameters: items, rules: rules, conditions: [.equal("title", "mine")])
        let theirs = try LiveQueryRequest<QueryRow>(
            parameters: items, rules: rules, conditions: [.equal("title", "theirs")])
        #expect(mine.query.key != theirs.query.key)
        let row = QueryRow(id: 1, project: "home", priority: 1, title: "mine", score: 1, done: nil)
        #expect(mine.query.isIncluded(row))
        #expect(!theirs.query.isIncluded(row))
    }

    @Test("filters follow SQL: NULL matches only is.null, kinds compare only with their own")
    func sqlSemantics() throws {
        let row = QueryRow(id: 1, project: "b", priority: 2, title: "x", score: 2.5, done: nil)
        func matches(_ query: String) throws -> Bool { try request(query).query.isIncluded(row) }
        #expect(try matches("done=is.null"))
        #expect(try !matches("done=eq.false"))
        #expect(try !matches("done=neq.false"))
        #expect(try matches("project=gt.a&project=lt.c&priority=gte.2&priority=lte.2&score=gt.2"))
        #expect(try !matches("project=neq.b"))
        #expect(try matches("priority=in.(1,2)"))
        #expect(try !matches("done=not.is.null") && !matches("done=is.not_null") && matches("title=not.is.null"))
        #expect(try !matches("done=not.eq.true"), "NOT (NULL = true) is NULL: no match")
        #expect(try matches("priority=not.lt.2&priority=not.gt.2&project=not.eq.a&priority=not.in.(1,3)"))
        #expect(try !matches("priority=not.in.(2,3)") && !matches("done=not.in.(true)"))
        #expect(try matches("done=not.in.()"), "NOT (NULL = ANY('{}')) is true")
    }

    @Test("not. negates each operator once, as SQL's NOT does, and the query names it back")
    func negation() throws {
        #expect(try request("priority=not.lt.3").query.filters == [.greaterThanOrEqual("priority", 3)])
        #expect(try request("title=not.neq.x").query.filters == [.equal("title", "x")])
        let notIn = try request("priority=not.in.(3,1,3)").query.filters
        #expect(notIn == [LiveQueryFilter(column: "priority", condition: .notIn([.integer(1), .integer(3)]))])
        #expect(notIn.map(\.description) == ["priority=not.in.(1,3)"])
        #expect(try request("done=not.is.null").query.filters.map(\.description) == ["done=not.is.null"])
        #expect(throws: LiveQueryError.self) { try request("priority=not.not.eq.1") }
        #expect(throws: LiveQueryError.self) { try request("priority=not.in.(1)&priority=not.not.in.(2)") }
        #expect(throws: LiveQueryError.self) { try request("done=is.true") }
    }

    @Test("a query's order and sections make a controller's order")
    func ordering() async throws {
        let query = try request("order=priority.desc,title").query
        let rows = (1...6).map {
            QueryRow(
                id: Int64($0), project: $0 % 2 == 0 ? "b" : "a", priority: $0 % 3, title: "t\(7 - $0)", score: 0,
                done: nil)
        }
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { rows.reversed() }), sortDescriptors: query.sortDescriptors,
            sectionNameKeyPath: query.sectionNameKeyPath)
        try await controller.performFetch()
        let expected = rows.sorted {
            ($0.project, -$0.priority, $0.title, $0.id) < ($1.project, -$1.priority, $1.title, $1.id)
        }
        #expect(Array(controller.fetchedObjects) == expected)
        #expect(controller.sections.map(\.name) == ["a", "b"])
    }
}
