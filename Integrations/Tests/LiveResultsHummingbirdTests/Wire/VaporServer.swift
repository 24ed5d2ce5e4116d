#if LIVERESULTS_VAPOR
    // Built unless the package leaves Vapor out (LIVERESULTS_WITHOUT_VAPOR, as CI's ThreadSanitizer build does).
    import LiveResults
    import LiveResultsTestSupport
    import LiveResultsVapor
    import Logging
    import TodoServer
    import Vapor

    /// `LiveResultsVapor` under test: the routes on a Vapor `Application` serving on 127.0.0.1 on a port of the
    /// system's choice, their endpoints its lifecycle handlers (so that they end their streams before the server
    /// stops). Its start and its shutdown are bounded: a server that does not start or stop in time fails the test.
    struct VaporServer: ServerUnderTest {
        var testDescription: String { "Vapor" }
        var answersRefusedUpgrades: Bool { true }

        func serving<Result: Sendable>(
            _ store: MemoryTodoStore, options: LiveResultsOptions,
            _ body: @Sendable (ServedRoutes) async throws -> Result
        ) async throws -> Result {
            var environment = Environment.testing
            environment.arguments = ["test"]
            let app = try await Application.make(environment)
            app.logger.logLevel = .warning
            app.http.server.configuration.shutdownTimeout = .seconds(10)
            let results = app.liveResults(store.controller, at: "results", options: options)
            let relations = WireRoutes.relations(of: store)
            let todos = app.liveQueries(
                store.todos, at: "todos", filters: WireRoutes.todoFilters, orders: WireRoutes.todoOrders,
                defaultOrder: WireRoutes.todoDefaultOrder, sections: ["project"], maximumLimit: WireRoutes.maximumLimit,
                relations: relations, options: options)
            let mine = app.liveQueries(
                store.todos, at: "mine", filters: WireRoutes.todoFilters, orders: WireRoutes.todoOrders,
                maximumLimit: WireRoutes.maximumLimit,
                authorize: { request in
                    guard let project = request.headers.first(name: WireRoutes.projectHeader) else {
                        throw Abort(.unauthorized)
                    }
                    return [.equal("project", project)]
                }, options: options)
            let people = app.liveQueries(
                store.people, at: "people", filters: WireRoutes.personFilters, orders: WireRoutes.personOrders,
                maximumLimit: WireRoutes.maximumLimit, options: options)
            for endpoint in [results, todos, mine, people] { app.lifecycle.use(endpoint) }
            let server = app.http.server.shared
            let outcome: Swift.Result<Result, any Error>
            do {
                try await Self.bounded(HTTPTestServer.startTimeout, "start") {
                    try await app.asyncBoot()
                    try await server.start(address: .hostname("127.0.0.1", port: 0))
                }
                guard let port = server.localAddress?.port else { throw TestFailure("the server has no port") }
                outcome = .success(
                    try await body(
                        ServedRoutes(base: "http://127.0.0.1:\(port)", results: results, todos: todos, mine: mine)))
            } catch {
                outcome = .failure(error)
            }
            // As a Vapor application shuts down: its lifecycle handlers first (the streams end), then its server.
            try await Self.bounded(HTTPTestServer.shutdownTimeout + .seconds(5), "shutdown") {
                try await app.asyncShutdown()
                await server.shutdown()
            }
            return try outcome.get()
        }

        /// Runs `operation`, failing with a `TestFailure` if it takes longer than `limit`.
        private static func bounded(
            _ limit: Duration, _ what: String, _ operation: @escaping @Sendable () async throws -> Void
        ) async throws {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                group.addTask {
                    try await operation()
                    return true
                }
                group.addTask {
                    try await Task.sleep(for: limit)
                    return false
                }
                let finished = try await group.next() ?? false
                group.cancelAll()
                guard finished else { throw TestFailure("the Vapor server's \(what) took over \(limit)") }
            }
        }
    }
#endif
