import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOHTTP1
import Testing
import TodoServer

/// `/todos` as live queries, against every adapter: each client's filter, order and window, shared controllers,
/// bounds and bad input.
@Suite("Wire: live queries", .timeLimit(.minutes(5)))
struct LiveQueriesWireTests {
    static let todos = [
        Todo(id: 1, title: "Milk", project: "Home", priority: 2),
        Todo(id: 2, title: "Report", project: "Work", priority: 1),
        Todo(id: 3, title: "Bread", project: "Home", priority: 0),
        Todo(id: 4, title: "Call", project: "Work", priority: 3),
        Todo(id: 5, title: "Eggs", project: "Home", priority: 2),
    ]

    /// The media type of the versioned whole results.
    static let versioned = "application/vnd.liveresults+json"

    /// The versioned whole results of `query` of `/todos`, sectioned by project.
    static func whole(_ routes: ServedRoutes, _ query: String) async throws -> ResultsUpdate<Todo> {
        let reply = try await HTTP.send(
            .GET, "\(routes.base)/todos?\(query)&sections=project", headers: [("Accept", Self.versioned)])
        guard reply.status == 200 else { throw TestFailure("GET /todos?\(query): \(reply.status) \(reply.text)") }
        return try reply.decode(ResultsUpdate<Todo>.self)
    }

    static func ids(_ update: ResultsUpdate<Todo>) -> [Int64] {
        guard case .results(let sections) = update.content else { return [] }
        return sections.flatMap { $0.entities.map(\.id) }
    }

    /// The query of the to-do whose id is `id`.
    static func todo(_ id: Int64) throws -> LiveQuery<Todo> { try LiveQuery(filters: [.equal("id", id)]) }

    @Test(
        "a query's filter, order and window select and order the results, sectioned by project",
        arguments: ServersUnderTest.all)
    func filterOrderWindow(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(Self.todos), options: LiveResultsOptions()) { routes in
            #expect(Self.ids(try await Self.whole(routes, "")) == [3, 1, 5, 2, 4])
            #expect(Self.ids(try await Self.whole(routes, "project=eq.Home")) == [3, 1, 5])
            #expect(Self.ids(try await Self.whole(routes, "project=eq.Home&order=priority.desc")) == [1, 5, 3])
            #expect(Self.ids(try await Self.whole(routes, "order=title")) == [3, 5, 1, 4, 2])
            #expect(Self.ids(try await Self.whole(routes, "priority=in.(2,3)&limit=2&offset=1")) == [5, 4])
            #expect(Self.ids(try await Self.whole(routes, "priority=gte.1&priority=lt.3&title=neq.Eggs")) == [1, 2])
            #expect(Self.ids(try await Self.whole(routes, "offset=100")).isEmpty)
            let percentEncoded = try await Self.whole(routes, "project=eq.%48ome&title=in.(%22Milk%22,Bread)")
            #expect(Self.ids(percentEncoded) == [3, 1])
        }
    }

    /// Bad queries of `/todos` and the code of PostgREST's error each gets.
    static let badQueries = [
        ("owner=eq.1", "42703"), ("priority=like.1", "PGRST127"), ("priority=noop.1", "PGRST100"),
        ("priority=eq.abc", "PGRST100"), ("limit=-1", "PGRST100"), ("limit=\(WireRoutes.maximumLimit + 1)", "PGRST100"),
        ("limit=1&limit=2", "PGRST100"), ("order=owner", "42703"), ("order=assignee_id", "PGRST100"),
        ("priority=in.(1,", "PGRST100"), ("title=is.nothing", "PGRST100"), ("select=id,nope", "42703"),
        ("select=id,owners(name)", "PGRST200"), ("select=id,", "PGRST100"), ("sections=title", "PGRST100"),
        ("sections=nope", "42703"), ("people.limit=1", "PGRST108"),
    ]

    @Test("bad queries get 400 with PostgREST's error body and code", arguments: ServersUnderTest.all)
    func badQueries(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(Self.todos), options: LiveResultsOptions()) { routes in
            for (query, code) in Self.badQueries {
                for route in ["todos", "todos/events"] {
                    let reply = try await HTTP.send(.GET, "\(routes.base)/\(route)?\(query)")
                    #expect(reply.status == 400, "\(route)?\(query)")
                    #expect(reply.code == code, "\(route)?\(query): \(reply.text)")
                    #expect(reply.header("Proxy-Status") == "PostgREST; error=\(code)", "\(route)?\(query)")
                    let body = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
                    #expect(Set(body?.keys ?? [:].keys) == ["code", "message", "details", "hint"], "\(reply.text)")
                }
            }
            #expect(routes.todos.liveQueryCount == 0, "a refused query makes no controller")
        }
    }

    @Test("an in list over 1,000 values is refused; values are data, never SQL", arguments: ServersUnderTest.all)
    func longListsAndData(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(Self.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let values = (0..<2_000).map(String.init).joined(separator: ",")
            let long = try await HTTP.send(.GET, "\(routes.base)/todos?priority=in.(\(values))")
            #expect(long.status == 400)
            #expect(long.error?.hasPrefix("priority") == true)
            let sql = "%27%3B%20DROP%20TABLE%20todos%3B%20--"
            #expect(Self.ids(try await Self.whole(routes, "title=eq.\(sql)")).isEmpty)
            _ = try await store.insert([TodoInput(title: "日本語 ✓", project: "Home", priority: 1)])
            let unicode = "%E6%97%A5%E6%9C%AC%E8%AA%9E%20%E2%9C%93"
            #expect(Self.ids(try await Self.whole(routes, "title=eq.\(unicode)")) == [6])
        }
    }

    @Test(
        "queries equal after normalising share one controller; different ones do not", arguments: ServersUnderTest.all)
    func sharing(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(Self.todos), options: LiveResultsOptions()) { routes in
            let one = try await EventStream.open("\(routes.base)/todos/events?project=eq.Home&priority=in.(2,0)")
            let two = try await EventStream.open("\(routes.base)/todos/events?priority=in.(0,%202)&project=eq.Home")
            #expect(one.status == 200 && two.status == 200)
            #expect(routes.todos.liveQueryCount == 1)
            let three = try await EventStream.open("\(routes.base)/todos/events?project=eq.Work")
            #expect(three.status == 200)
            #expect(routes.todos.liveQueryCount == 2)
            // The same window of the same query: the same versions, so a stream resumes on the other's version.
            var first = one.events.makeAsyncIterator()
            var second = two.events.makeAsyncIterator()
            #expect(try await first.next()?.id == (try await second.next()?.id))
        }
    }

    @Test(
        "a stream of a filtered window follows only its rows, and equals GET of its query at the end",
        arguments: ServersUnderTest.all)
    func filteredStream(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(Self.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let query = "project=eq.Home&order=priority.desc&limit=3"
            let follower = Follower(try await EventStream.open("\(routes.base)/todos/events?\(query)").updates)
            let checker = ContractChecker(observing: follower.replica.observeChanges)
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == [1, 5, 3] })
            let before = follower.bases.count
            _ = try await store.update(try Self.todo(2), with: TodoInput(title: "Other project"))
            _ = try await store.insert([TodoInput(title: "Top", project: "Home", priority: 9)])
            #expect(await eventually { follower.replica.fetchedObjects.first?.title == "Top" })
            #expect(follower.bases.count == before + 1, "the write to Work sent nothing")
            _ = try await store.update(try Self.todo(6), with: TodoInput(project: "Work"))
            _ = try await store.delete(try Self.todo(3))
            let expected = Self.ids(try await Self.whole(routes, query))
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == expected })
            #expect(expected == [1, 5])
            #expect(checker.violations.isEmpty, "\(checker.violations)")
            follower.stop()
        }
    }

    /// Windows come from what clients send: the largest offset is a window like any other, empty, and the
    /// writes that follow are looked up among the windows without overflowing (they once stopped the server).
    @Test(
        "a stream whose offset is Int.max stays empty while writes happen, and the server serves on",
        arguments: ServersUnderTest.all)
    func largestOffset(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(Self.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let far = "offset=\(Int.max)&limit=\(WireRoutes.maximumLimit)"
            let follower = Follower(try await EventStream.open("\(routes.base)/todos/events?\(far)").updates)
            let near = Follower(
                try await EventStream.open("\(routes.base)/todos/events?limit=2&sections=project").updates)
            #expect(await eventually { follower.bases.count == 1 && near.replica.fetchedObjects.count == 2 })
            _ = try await store.insert([TodoInput(title: "Top", project: "A", priority: 0)])
            _ = try await store.update(try Self.todo(1), with: TodoInput(priority: 9))
            #expect(await eventually { near.replica.fetchedObjects.first?.title == "Top" })
            #expect(follower.replica.fetchedObjects.isEmpty && follower.bases.count == 1)
            #expect(Self.ids(try await Self.whole(routes, far)).isEmpty)
            let overflowing = try await HTTP.send(.GET, "\(routes.base)/todos?offset=\(Int.max)0")
            #expect(overflowing.status == 400)
            follower.stop()
            near.stop()
        }
    }

    @Test(
        "a version of another query, or of another server, given as Last-Event-ID gets the whole window",
        arguments: ServersUnderTest.all)
    func foreignVersions(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(Self.todos), options: LiveResultsOptions()) { routes in
            let other = try await Self.whole(routes, "project=eq.Work")
            let stream = try await EventStream.open(
                "\(routes.base)/todos/events?project=eq.Home", lastEventID: other.version.description)
            var events = stream.events.makeAsyncIterator()
            let first = try #require(try await events.next()).update()
            #expect(first.base == nil)
            #expect(Self.ids(first) == [3, 1, 5])
        }
    }

    @Test(
        "at most maximumLiveQueries: one more, when all are streamed, gets 503 with Retry-After",
        arguments: ServersUnderTest.all)
    func registryBound(server: any ServerUnderTest) async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = 2
        options.liveQueryGracePeriod = .milliseconds(100)
        try await server.serving(try await MemoryTodoStore(Self.todos), options: options) { routes in
            let home = try await EventStream.open("\(routes.base)/todos/events?project=eq.Home")
            let work = try await EventStream.open("\(routes.base)/todos/events?project=eq.Work")
            #expect(home.status == 200 && work.status == 200)
            let refused = try await HTTP.send(.GET, "\(routes.base)/todos?priority=eq.1")
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") != nil)
            withExtendedLifetime((home, work)) {}
        }
    }

    @Test(
        "2,000 distinct queries from one client: the live queries stay bounded and shrink back",
        arguments: ServersUnderTest.all)
    func manyQueries(server: any ServerUnderTest) async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = 100
        options.liveQueryGracePeriod = .milliseconds(200)
        try await server.serving(try await MemoryTodoStore(Self.todos), options: options) { routes in
            var most = 0
            for index in 0..<2_000 {
                let reply = try await HTTP.send(.GET, "\(routes.base)/todos?title=eq.t\(index)")
                #expect(reply.status == 200)
                most = max(most, routes.todos.liveQueryCount)
            }
            #expect(most <= 100)
            #expect(await eventually { routes.todos.liveQueryCount == 0 })
        }
    }

    @Test(
        "authorize: its conditions AND into every query, whole results too; callers never share a live query",
        arguments: ServersUnderTest.all)
    func authorization(server: any ServerUnderTest) async throws {
        try await server.serving(try await MemoryTodoStore(Self.todos), options: LiveResultsOptions()) { routes in
            #expect(try await HTTP.send(.GET, "\(routes.base)/mine").status == 401)
            let home = try await HTTP.send(
                .GET, "\(routes.base)/mine?priority=gte.1",
                headers: [(WireRoutes.projectHeader, "Home"), ("Accept", Self.versioned)])
            #expect(Self.ids(try home.decode(ResultsUpdate<Todo>.self)) == [1, 5])
            let work = try await HTTP.send(
                .GET, "\(routes.base)/mine?priority=gte.1", headers: [(WireRoutes.projectHeader, "Work")])
            #expect(try work.decode([Todo].self).map(\.id) == [2, 4])
            #expect(routes.mine.liveQueryCount == 2)
        }
    }
}
