import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import LiveResultsWireSupport
import NIOHTTP1
import Testing
import TodoServer

/// Windows, live queries' streams and the source's status, against every adapter.
@Suite("Wire: windows, live queries' streams and the source's status", .timeLimit(.minutes(5)))
struct WindowsAndSourceWireTests {
    /// The ids of the whole results `update` carries.
    static func ids(_ update: ResultsUpdate<Todo>?) -> [Int64]? {
        guard case .results(let sections) = update?.content else { return nil }
        return sections.flatMap { $0.entities.map(\.id) }
    }

    @Test("?limit= and ?offset= serve a window of the results, whole and streamed", arguments: ServersUnderTest.all)
    func window(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(WireRoutes.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let all = Self.ids(try await HTTP.send(.GET, "\(routes.base)/results").decode(ResultsUpdate<Todo>.self))
            let window = try await HTTP.send(.GET, "\(routes.base)/results?limit=1&offset=1")
            #expect(Self.ids(try window.decode(ResultsUpdate<Todo>.self)) == all.map { [$0[1]] })
            let stream = try await EventStream.open("\(routes.base)/results/events?limit=2")
            var events = stream.events.makeAsyncIterator()
            #expect(Self.ids(try await events.next()?.update()) == all.map { Array($0.prefix(2)) })
        }
    }

    @Test(
        "the streams of one range share one window, and its versions; another range has a window of its own",
        arguments: ServersUnderTest.all)
    func sharedWindow(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(WireRoutes.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            var versions: [String?] = []
            for query in ["limit=2", "limit=2", "limit=2&offset=1"] {
                let stream = try await EventStream.open("\(routes.base)/results/events?\(query)")
                var events = stream.events.makeAsyncIterator()
                versions.append(try await events.next()?.id)
            }
            // A window's versions are named after it (a random origin): two windows never name one version alike.
            #expect(versions[0] != nil && versions[0] == versions[1], "one window for one range: \(versions)")
            #expect(versions[2] != nil && versions[2] != versions[0], "another range: \(versions)")
        }
    }

    @Test("a live query's stream starts with its window, sectioned when it asks", arguments: ServersUnderTest.all)
    func liveQueryStream(server: any ServerUnderTest) async throws {
        let store = try await MemoryTodoStore(WireRoutes.todos)
        try await server.serving(store, options: LiveResultsOptions()) { routes in
            let stream = try await EventStream.open(
                "\(routes.base)/todos/events?project=eq.Home&order=priority.desc&sections=project")
            var events = stream.events.makeAsyncIterator()
            let first = try #require(try await events.next()?.update())
            guard case .results(let sections) = first.content else {
                Issue.record("not the whole results: \(first)")
                return
            }
            #expect(sections.map(\.name) == ["Home"])
            #expect(Self.ids(first) == [3, 1])
            #expect(routes.todos.liveQueryCount == 1)
        }
    }

    @Test(
        "a source out of reach is told to each Server-Sent Events stream, as it changes",
        arguments: ServersUnderTest.all)
    func sourceStatus(server: any ServerUnderTest) async throws {
        let status = LiveResultsSourceStatus()
        status.set(available: false)
        try await server.serving(try await MemoryTodoStore(), options: LiveResultsOptions(sourceStatus: status)) {
            routes in
            let stream = try await EventStream.open("\(routes.base)/results/events")
            var events = stream.events.makeAsyncIterator()
            var told: [String] = []
            while told.count < 2, let event = try await events.next() {
                if event.name == "source" { told.append(event.data) }
                if told.count == 1 { status.set(available: true) }
            }
            #expect(told == [#"{"available":false}"#, #"{"available":true}"#])
        }
    }
}
