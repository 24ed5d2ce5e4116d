import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import Testing

/// A route's embeddings (`_LiveEmbeddings`) count as live queries toward the limit of the route's registry, and
/// stay for its grace period after their last stream, as the registry's queries do.
@Suite("A route's live embeddings: the limit and the grace period")
struct LiveEmbeddingsTests {
    typealias Todo = Assignments.Todo

    static let select = "id,title,assignee:people(id,name)"

    /// The route's embeddings of `data`'s to-dos, within `registry`'s limit and grace period.
    static func embeddings(
        of data: Assignments, registry: LiveQueryRegistry<MemoryTable<Todo>>
    ) -> _LiveEmbeddings<MemoryTable<Todo>> {
        let route = _LiveQueryRoute(
            path: "todos", filters: [], orders: [], defaultOrder: [], sections: [], maximumLimit: 500,
            relations: data.relations, respondsItself: { _ in false })
        return _LiveEmbeddings(registry: registry, route: route)
    }

    /// The query and `select=` of the to-dos of `priority`, embedding their assignees.
    static func asked(priority: Int, relations: LiveRelations) throws -> (
        query: LiveQuery<Todo>, select: SelectList, window: WindowRange
    ) {
        try Assignments.request(
            [("select", select), ("priority", "eq.\(priority)"), ("order", "id.asc")], table: "todos", as: Todo.self,
            relations: relations)
    }

    @Test("the (n+1)th distinct query is refused, plain or embedding; the live ones are shared; an idle one makes room")
    func limit() async throws {
        let data = LiveEmbeddingTests.assignments()
        let registry = LiveQueryRegistry(source: data.todos, maximumQueries: 2, gracePeriod: .seconds(60))
        let embeddings = Self.embeddings(of: data, registry: registry)
        let (one, two, three) = (
            try Self.asked(priority: 1, relations: data.relations),
            try Self.asked(priority: 2, relations: data.relations),
            try Self.asked(priority: 3, relations: data.relations)
        )
        let plain = try await embeddings.results(for: one.query)
        var embedded: _LiveEmbeddings<MemoryTable<Todo>>.Hold? = try await embeddings.embedding(
            of: two.select, in: two.query)
        #expect(registry.liveQueryCount == 1 && embeddings.count == 1)

        await #expect(throws: LiveQueryRegistryError.full(maximum: 2)) {
            _ = try await embeddings.results(for: three.query)
        }
        await #expect(throws: LiveQueryRegistryError.full(maximum: 2)) {
            _ = try await embeddings.embedding(of: three.select, in: three.query)
        }
        #expect(registry.liveQueryCount + embeddings.count == 2, "nothing refused stays live beyond the limit")

        // The live ones, asked again, are shared rather than refused.
        var again: _LiveEmbeddings<MemoryTable<Todo>>.Hold? = try await embeddings.embedding(
            of: two.select, in: two.query)
        #expect(again?.embedding === embedded?.embedding)
        #expect(try await embeddings.results(for: one.query).controller === plain.controller)

        // Once nobody holds the embedding it is idle: a new query releases it to make room.
        weak let released = again?.embedding
        (embedded, again) = (nil, nil)
        #expect(embeddings.count == 1 && released != nil)
        let third = try await embeddings.results(for: three.query)
        #expect(registry.liveQueryCount == 2 && embeddings.count == 0)
        #expect(released == nil, "the idle embedding stops following its tables")
        withExtendedLifetime((plain, third)) {}
    }

    @Test("an embedding nobody holds is kept for the grace period, found again within it, and released after")
    func gracePeriod() async throws {
        let data = LiveEmbeddingTests.assignments()
        let registry = LiveQueryRegistry(source: data.todos, gracePeriod: .milliseconds(300))
        let embeddings = Self.embeddings(of: data, registry: registry)
        let asked = try Self.asked(priority: 3, relations: data.relations)
        var held: _LiveEmbeddings<MemoryTable<Todo>>.Hold? = try await embeddings.embedding(
            of: asked.select, in: asked.query)
        weak let embedding = held?.embedding
        held = nil
        #expect(embeddings.count == 1 && embedding != nil, "kept once its last holder left")

        held = try await embeddings.embedding(of: asked.select, in: asked.query)
        #expect(held?.embedding === embedding, "found again within the grace period")
        held = nil
        #expect(await eventually(timeout: .seconds(5)) { embeddings.count == 0 })
        #expect(embedding == nil, "released after the grace period")
        #expect(
            try await embeddings.embedding(of: asked.select, in: asked.query).embedding.controller.fetchedObjects.count
                == 1, "asked again, a new one is fetched")
    }

    @Test("a stream that reconnects after every stream of its query closed resumes with one catch-up")
    func resume() async throws {
        let data = LiveEmbeddingTests.assignments()
        let registry = LiveQueryRegistry(source: data.todos, gracePeriod: .seconds(60))
        let embeddings = Self.embeddings(of: data, registry: registry)
        let asked = try Self.asked(priority: 3, relations: data.relations)  // to-do 3, Ann's
        var held: _LiveEmbeddings<MemoryTable<Todo>>.Hold? = try await embeddings.embedding(
            of: asked.select, in: asked.query)
        // A stream of the window, which then keeps its versions, read once and closed.
        var stream = held?.embedding.window(asked.window).updates().makeAsyncIterator()
        let seen = try #require(await stream?.next()?.version)
        (stream, held) = (nil, nil)
        #expect(embeddings.count == 1)

        data.people.write([Assignments.Person(id: 1, name: "Ann B.")])
        let resumed = try await embeddings.embedding(of: asked.select, in: asked.query)
        let window = resumed.embedding.window(asked.window)
        #expect(
            await eventually(timeout: .seconds(5)) {
                LiveEmbeddingTests.objects(of: window) == [
                    #"{"id":3,"title":"t3","assignee":{"id":1,"name":"Ann B."}}"#
                ]
            })
        let updates = window.updates(since: seen).makeAsyncIterator()
        let catchUp = try #require(await updates.next())
        #expect(catchUp.base == seen, "one catch-up from the version the closed stream saw")
        #expect(catchUp.version == window.version)
    }

    @Test("requests that differ only in what they address to an embedded resource hold distinct embeddings")
    func parametersOfTheResourcesTellEmbeddingsApart() async throws {
        let data = LiveEmbeddingTests.assignments()
        let registry = LiveQueryRegistry(source: data.todos, maximumQueries: 10, gracePeriod: .seconds(60))
        let embeddings = Self.embeddings(of: data, registry: registry)
        func held(_ parameters: [(String, String)]) async throws -> _LiveEmbeddings<MemoryTable<Todo>>.Hold {
            let asked = try Assignments.request(
                [("select", "id,assignee:people!inner(name)"), ("order", "id.asc")] + parameters, table: "todos",
                as: Todo.self, relations: data.relations)
            return try await embeddings.embedding(of: asked.select, in: asked.query)
        }
        let (ann, bo, again) = (
            try await held([("assignee.name", "eq.Ann")]), try await held([("assignee.name", "eq.Bo")]),
            try await held([("assignee.name", "eq.Ann")])
        )
        #expect(ann.embedding !== bo.embedding && embeddings.count == 2)
        #expect(ann.embedding === again.embedding)
    }
}
