import Foundation
import Hummingbird
import HummingbirdTesting
import LiveResults
import LiveResultsHummingbird
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOFoundationCompat
import NIOHTTP1
import Testing
import TodoServer

/// `/todos` as live queries: each client's filter, order and window, shared controllers, bounds and bad input.
@Suite("Live queries", .timeLimit(.minutes(5)))
struct LiveQueriesTests {
    static let todos = [
        Todo(id: 1, title: "Milk", project: "Home", priority: 2),
        Todo(id: 2, title: "Report", project: "Work", priority: 1),
        Todo(id: 3, title: "Bread", project: "Home", priority: 0),
        Todo(id: 4, title: "Call", project: "Work", priority: 3),
        Todo(id: 5, title: "Eggs", project: "Home", priority: 2),
    ]

    /// The versioned whole results of `query`, sectioned by project.
    static func whole(_ server: some TodoRequests, _ query: String) async throws -> ResultsUpdate<Todo> {
        let reply = try await server.send(
            .GET, "/todos?\(query)&sections=project", headers: [("Accept", Self.versioned)])
        guard reply.status == 200 else { throw TestFailure("GET /todos?\(query): \(reply.status) \(reply.text)") }
        return try reply.decode(ResultsUpdate<Todo>.self)
    }

    /// The media type of the versioned whole results.
    static let versioned = "application/vnd.liveresults+json"

    static func ids(_ update: ResultsUpdate<Todo>) -> [Int64] {
        guard case .results(let sections) = update.content else { return [] }
        return sections.flatMap { $0.entities.map(\.id) }
    }

    @Test("a query's filter, order and window select and order the results, sectioned by project")
    func filterOrderWindow() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos)) { server in
            #expect(Self.ids(try await Self.whole(server, "")) == [3, 1, 5, 2, 4])
            #expect(Self.ids(try await Self.whole(server, "project=eq.Home")) == [3, 1, 5])
            #expect(Self.ids(try await Self.whole(server, "project=eq.Home&order=priority.desc")) == [1, 5, 3])
            #expect(Self.ids(try await Self.whole(server, "order=title")) == [3, 5, 1, 4, 2])
            #expect(Self.ids(try await Self.whole(server, "priority=in.(2,3)&limit=2&offset=1")) == [5, 4])
            #expect(Self.ids(try await Self.whole(server, "priority=gte.1&priority=lt.3&title=neq.Eggs")) == [1, 2])
            #expect(Self.ids(try await Self.whole(server, "offset=100")).isEmpty)
            let percentEncoded = try await Self.whole(server, "project=eq.%48ome&title=in.(%22Milk%22,Bread)")
            #expect(Self.ids(percentEncoded) == [3, 1])
        }
    }

    @Test(
        "bad queries get 400 with PostgREST's error body and code",
        arguments: [
            ("owner=eq.1", "42703"), ("priority=like.1", "PGRST127"), ("priority=noop.1", "PGRST100"),
            ("priority=eq.abc", "PGRST100"), ("limit=-1", "PGRST100"), ("limit=501", "PGRST100"),
            ("limit=1&limit=2", "PGRST100"), ("order=owner", "42703"), ("order=assignee_id", "PGRST100"),
            ("priority=in.(1,", "PGRST100"), ("title=is.nothing", "PGRST100"), ("select=id,nope", "42703"),
            ("select=id,owners(name)", "PGRST200"), ("select=id,", "PGRST100"), ("sections=title", "PGRST100"),
            ("sections=nope", "42703"), ("people.limit=1", "PGRST108"),
        ])
    func badQueries(query: String, code: String) async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos)) { server in
            for route in ["todos", "todos/events"] {
                let reply = try await HTTP.send(.GET, "\(server.base)/\(route)?\(query)")
                #expect(reply.status == 400, "\(route)?\(query)")
                #expect(reply.code == code, "\(reply.text)")
                #expect(reply.header("Proxy-Status") == "PostgREST; error=\(code)")
                let body = try JSONSerialization.jsonObject(with: reply.body) as? [String: Any]
                #expect(Set(body?.keys ?? [:].keys) == ["code", "message", "details", "hint"], "\(reply.text)")
            }
            #expect(server.endpoint.liveQueryCount == 0, "a refused query makes no controller")
        }
    }

    @Test("an in list over 1,000 values is refused; values are data, never SQL")
    func longListsAndData() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos)) { server in
            let values = (0..<2_000).map(String.init).joined(separator: ",")
            let long = try await server.send(.GET, "/todos?priority=in.(\(values))")
            #expect(long.status == 400)
            #expect(long.error?.hasPrefix("priority") == true)
            let sql = "%27%3B%20DROP%20TABLE%20todos%3B%20--"
            #expect(Self.ids(try await Self.whole(server, "title=eq.\(sql)")).isEmpty)
            try await HTTP.create(server, title: "日本語 ✓", project: "Home", priority: 1)
            let unicode = "%E6%97%A5%E6%9C%AC%E8%AA%9E%20%E2%9C%93"
            #expect(Self.ids(try await Self.whole(server, "title=eq.\(unicode)")) == [6])
        }
    }

    @Test("queries equal after normalising share one controller; different ones do not")
    func sharing() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos)) { server in
            let one = try await EventStream.open("\(server.base)/todos/events?project=eq.Home&priority=in.(2,0)")
            let two = try await EventStream.open("\(server.base)/todos/events?priority=in.(0,%202)&project=eq.Home")
            #expect(one.status == 200 && two.status == 200)
            #expect(server.endpoint.liveQueryCount == 1)
            let three = try await EventStream.open("\(server.base)/todos/events?project=eq.Work")
            #expect(three.status == 200)
            #expect(server.endpoint.liveQueryCount == 2)
            // The same window of the same query: the same versions, so a stream resumes on the other's version.
            var first = one.events.makeAsyncIterator()
            var second = two.events.makeAsyncIterator()
            #expect(try await first.next()?.id == (try await second.next()?.id))
        }
    }

    @Test("a stream of a filtered window follows only its rows, and equals GET of its query at the end")
    func filteredStream() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos)) { server in
            let query = "project=eq.Home&order=priority.desc&limit=3"
            let follower = Follower(try await EventStream.open("\(server.base)/todos/events?\(query)").updates)
            let checker = ContractChecker(observing: follower.replica.observeChanges)
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == [1, 5, 3] })
            let before = follower.bases.count
            _ = try await HTTP.send(.PATCH, "\(server.base)/todos/2", json: #"{"title":"Other project"}"#)
            try await HTTP.create(server, title: "Top", project: "Home", priority: 9)
            #expect(await eventually { follower.replica.fetchedObjects.first?.title == "Top" })
            #expect(follower.bases.count == before + 1, "the write to Work sent nothing")
            _ = try await HTTP.send(.PATCH, "\(server.base)/todos/6", json: #"{"project":"Work"}"#)
            _ = try await HTTP.send(.DELETE, "\(server.base)/todos/3")
            let expected = Self.ids(try await Self.whole(server, query))
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == expected })
            #expect(expected == [1, 5])
            #expect(checker.violations.isEmpty, "\(checker.violations)")
            follower.stop()
        }
    }

    /// Windows come from what clients send: the largest offset is a window like any other, empty, and the
    /// writes that follow are looked up among the windows without overflowing (they once stopped the server).
    @Test("a stream whose offset is Int.max stays empty while writes happen, and the server serves on")
    func largestOffset() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos)) { server in
            let far = "offset=\(Int.max)&limit=500"
            let follower = Follower(try await EventStream.open("\(server.base)/todos/events?\(far)").updates)
            let near = Follower(
                try await EventStream.open("\(server.base)/todos/events?limit=2&sections=project").updates)
            #expect(await eventually { follower.bases.count == 1 && near.replica.fetchedObjects.count == 2 })
            try await HTTP.create(server, title: "Top", project: "A", priority: 0)
            _ = try await HTTP.send(.PATCH, "\(server.base)/todos/1", json: #"{"priority":9}"#)
            #expect(await eventually { near.replica.fetchedObjects.first?.title == "Top" })
            #expect(follower.replica.fetchedObjects.isEmpty && follower.bases.count == 1)
            #expect(Self.ids(try await Self.whole(server, far)).isEmpty)
            let overflowing = try await HTTP.send(.GET, "\(server.base)/todos?offset=\(Int.max)0")
            #expect(overflowing.status == 400)
            follower.stop()
            near.stop()
        }
    }

    @Test("a version of another query, or of another server, given as Last-Event-ID gets the whole window")
    func foreignVersions() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos)) { server in
            let other = try await Self.whole(server, "project=eq.Work")
            let stream = try await EventStream.open(
                "\(server.base)/todos/events?project=eq.Home", lastEventID: other.version.description)
            var events = stream.events.makeAsyncIterator()
            let first = try #require(try await events.next()).update()
            #expect(first.base == nil)
            #expect(Self.ids(first) == [3, 1, 5])
        }
    }

    @Test("at most maximumLiveQueries: one more, when all are streamed, gets 503 with Retry-After")
    func registryBound() async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = 2
        options.liveQueryGracePeriod = .milliseconds(100)
        try await RunningServer.with(try await MemoryTodoStore(Self.todos), options: options) { server in
            let home = try await EventStream.open("\(server.base)/todos/events?project=eq.Home")
            let work = try await EventStream.open("\(server.base)/todos/events?project=eq.Work")
            #expect(home.status == 200 && work.status == 200)
            let refused = try await HTTP.send(.GET, "\(server.base)/todos?priority=eq.1")
            #expect(refused.status == 503)
            #expect(refused.headers.first(name: "Retry-After") != nil)
            // A whole-results request holds its query only while it is answered: after the grace period it goes.
            withExtendedLifetime((home, work)) {}
        }
    }

    @Test("2,000 distinct queries from one client: the live queries stay bounded and shrink back")
    func manyQueries() async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = 100
        options.liveQueryGracePeriod = .milliseconds(200)
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos), options: options) { server in
            var most = 0
            for index in 0..<2_000 {
                let reply = try await server.send(.GET, "/todos?title=eq.t\(index)")
                #expect(reply.status == 200)
                most = max(most, server.endpoint.liveQueryCount)
            }
            #expect(most <= 100)
            #expect(await eventually { server.endpoint.liveQueryCount == 0 })
        }
    }

    @Test("authorize: its conditions AND into every query; callers never share; its error is the response")
    func authorization() async throws {
        let table = MemoryTable(Self.todos)
        let router = Router()
        let endpoint = router.addLiveQueries(
            table, at: "todos", filters: ["priority"], orders: ["priority", "id"], sections: ["project"],
            authorize: { request, _ in
                guard let project = request.headers[.authorization] else {
                    throw HTTPError(.unauthorized, message: "who are you?")
                }
                return [.equal("project", project)]
            })
        // Through the router (HummingbirdTesting's `.router`): no socket; no services, so no signal handlers.
        try await Application(router: router).test(.router) { client in
            #expect(try await client.execute(uri: "/todos", method: .get).status == .unauthorized)
            let home = try await client.execute(
                uri: "/todos?priority=gte.1", method: .get,
                headers: [.authorization: "Home", .accept: Self.versioned])
            #expect(Self.ids(try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: home.body)) == [1, 5])
            let work = try await client.execute(
                uri: "/todos?priority=gte.1", method: .get, headers: [.authorization: "Work"])
            #expect(try JSONDecoder().decode([Todo].self, from: work.body).map(\.id) == [2, 4])
            #expect(endpoint.liveQueryCount == 2)
        }
    }
}
