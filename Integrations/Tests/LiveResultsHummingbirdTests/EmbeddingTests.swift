import Foundation
import LiveResults
import LiveResultsServing
import LiveResultsTestSupport
import NIOHTTP1
import PostgresNIO
import Testing
import TodoServer

/// `select=` embeds related tables as PostgREST does: a to-do's assignee (many-to-one: an object or `null`), a
/// person's to-dos (one-to-many: an array with its own filters, order, limit and offset), `!inner`, aliases, two
/// levels, and PostgREST's errors; checked against a join computed here, over random tables.
@Suite("Embedding related tables", .timeLimit(.minutes(5)))
struct EmbeddingTests {
    static let people = [Person(id: 1, name: "Ann"), Person(id: 2, name: "Bo"), Person(id: 3, name: "Cy")]
    static let todos = [
        Todo(id: 1, title: "Milk", project: "Home", priority: 2, assigneeID: 1),
        Todo(id: 2, title: "Deck", project: "Work", priority: 5, assigneeID: 1),
        Todo(id: 3, title: "Bins", project: "Home", priority: 1),
        Todo(id: 4, title: "Call", project: "Work", priority: 3, assigneeID: 2),
    ]

    struct Brief: Decodable, Equatable {
        let id: Int64
        let title: String
    }

    struct Assigned: Decodable, Equatable {
        struct Assignee: Decodable, Equatable {
            let id: Int64?
            let name: String
        }
        let id: Int64
        let title: String
        let assignee: Assignee?
    }

    struct Owner: Decodable, Equatable {
        let id: Int64
        let name: String
        let todos: [Brief]
    }

    static func get<Value: Decodable>(
        _ server: RoutedServer, _ path: String, as type: Value.Type, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> Value {
        let reply = try await server.send(.GET, path)
        #expect(reply.status == 200, "\(path): \(reply.text)", sourceLocation: sourceLocation)
        return try reply.decode(Value.self)
    }

    @Test("many-to-one: each to-do's assignee as an object with the columns asked for, or null")
    func manyToOne() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let rows = try await Self.get(
                server, "/todos?select=id,title,assignee:people(id,name)&order=id.asc", as: [Assigned].self)
            #expect(rows.map(\.assignee?.name) == ["Ann", "Ann", nil, "Bo"])
            #expect(rows.map(\.assignee?.id) == [1, 1, nil, 2])
            let reply = try await server.send(.GET, "/todos?select=title,people(name)&id=eq.4")
            #expect(reply.text == #"[{"title":"Call","people":{"name":"Bo"}}]"#, "the table's name as the key")
        }
    }

    @Test("one-to-many: each person's to-dos, with their own filter, order, limit and offset")
    func oneToMany() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let all = try await Self.get(
                server, "/people?select=id,name,todos(id,title)&order=name.asc&todos.order=priority.desc",
                as: [Owner].self)
            #expect(all.map { $0.todos.map(\.id) } == [[2, 1], [4], []], "Cy has none: an empty array")
            let top = try await Self.get(
                server, "/people?select=id,name,todos(id,title)&order=id.asc&todos.order=priority.desc&todos.limit=1",
                as: [Owner].self)
            #expect(top.map { $0.todos.map(\.id) } == [[2], [4], []])
            let rest = try await Self.get(
                server, "/people?select=id,name,todos(id,title)&order=id.asc&todos.order=priority.desc&todos.offset=1",
                as: [Owner].self)
            #expect(rest.map { $0.todos.map(\.id) } == [[1], [], []])
            let filtered = try await Self.get(
                server, "/people?select=id,name,todos(id,title)&order=id.asc&todos.priority=lt.3", as: [Owner].self)
            #expect(filtered.map { $0.todos.map(\.id) } == [[1], [], []], "the filter selects children only")
        }
    }

    @Test("!inner keeps the parents with a related row that its filters select, and counts them")
    func inner() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let ann = try await Self.get(
                server, "/todos?select=id,title,assignee:people!inner(name)&assignee.name=eq.Ann&order=id.asc",
                as: [Assigned].self)
            #expect(ann.map(\.id) == [1, 2])
            let left = try await Self.get(
                server, "/todos?select=id,title,assignee:people(name)&assignee.name=eq.Ann&order=id.asc",
                as: [Assigned].self)
            #expect(left.map(\.assignee?.name) == ["Ann", "Ann", nil, nil], "without !inner the parents stay")
            let counted = try await server.send(
                .GET, "/people?select=name,todos!inner(title)&order=id.asc&limit=1",
                headers: [("Prefer", "count=exact")])
            #expect(counted.header("Content-Range") == "0-0/2", "Cy has no to-do: two people in all")
            #expect(counted.status == 206)
        }
    }

    @Test("a spread writes a to-one's columns in the row (null without one), a to-many's as arrays")
    func spreads() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let toOne = try await server.send(
                .GET, "/todos?select=id,...people(assignee:name)&id=in.(3,4)&order=id.asc")
            #expect(toOne.text == #"[{"id":3,"assignee":null},{"id":4,"assignee":"Bo"}]"#)
            let toMany = try await server.send(.GET, "/people?select=name,...todos(titles:title)&id=eq.2")
            #expect(toMany.text == #"[{"name":"Bo","titles":["Call"]}]"#)
        }
    }

    /// A to-do with its assignee's name spread into it, as a client of a stream reads it.
    struct LiveSpread: FetchableEntity, Codable {
        let id: Int64
        let name: String?
    }

    @Test("a stream with a spread stays live: a rename updates the rows showing the name")
    func liveSpread() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let query = "todos?select=id,...people(name)&order=id.asc"
            let follower = Follower(
                try await EventStream.open("\(server.base)/\(query.replacing("todos?", with: "todos/events?"))")
                    .updates(of: LiveSpread.self))
            #expect(await eventually { await Self.replica(of: follower, equalsGET: query, at: server.base) })
            _ = try await HTTP.send(.PATCH, "\(server.base)/people/2", json: #"{"name":"Bob"}"#)
            #expect(await eventually { follower.replica.fetchedObjects.last?.name == "Bob" })
            #expect(follower.replica.fetchedObjects.map(\.name) == ["Ann", "Ann", nil, "Bob"])
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))
            #expect(follower.failure == nil)
        }
    }

    @Test("an empty embedding only filters: alias=not.is.null keeps the rows with a related row, is.null those without")
    func filtersOnTheEmbeddingItself() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let assigned = try await server.send(.GET, "/todos?select=id,people()&people=not.is.null&order=id.asc")
            #expect(assigned.text == #"[{"id":1},{"id":2},{"id":4}]"#)
            let unassigned = try await server.send(.GET, "/todos?select=id,people()&people=is.null")
            #expect(unassigned.text == #"[{"id":3}]"#)
            let urgent = try await server.send(
                .GET, "/people?select=name,todos(id)&todos.priority=gte.3&todos=not.is.null&order=id.asc",
                headers: [("Prefer", "count=exact")])
            #expect(urgent.text == #"[{"name":"Ann","todos":[{"id":2}]},{"name":"Bo","todos":[{"id":4}]}]"#)
            #expect(urgent.header("Content-Range") == "0-1/2")
            let idle = try await server.send(.GET, "/people?select=name,todos()&todos=is.null")
            #expect(idle.text == #"[{"name":"Cy"}]"#)
            let other = try await server.send(.GET, "/todos?select=id,people()&people=eq.1")
            #expect(other.status == 400 && other.code == "PGRST127")
        }
    }

    @Test("two levels: a person's to-dos, each with its assignee")
    func twoLevels() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let reply = try await server.send(
                .GET, "/people?select=name,todos(title,owner:people(name))&id=eq.2")
            #expect(reply.text == #"[{"name":"Bo","todos":[{"title":"Call","owner":{"name":"Bo"}}]}]"#)
        }
    }

    @Test("an unknown relation, a column the embedded table lacks, on GET and on a stream: PostgREST's errors")
    func refusals() async throws {
        try await RoutedServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let unknown = try await server.send(.GET, "/todos?select=id,owner:owners(name)")
            #expect(unknown.status == 400 && unknown.code == "PGRST200")
            #expect(unknown.error == "Could not find a relationship between 'todos' and 'owners' in the schema cache")
            let column = try await server.send(.GET, "/todos?select=id,people(age)")
            #expect(column.status == 400 && column.code == "42703")
            #expect(column.error == "column people.age does not exist")
            let childColumn = try await server.send(.GET, "/people?select=id,todos(id)&todos.size=eq.1")
            #expect(childColumn.code == "42703" && childColumn.error == "column todos.size does not exist")
            let stream = try await server.send(.GET, "/todos/events?select=id,owner:owners(name)")
            #expect(stream.status == 400 && stream.code == "PGRST200")
        }
    }

    /// A row of a stream that embeds each to-do's assignee, as a client reads it.
    struct LiveAssigned: FetchableEntity, Codable {
        struct Assignee: Codable, Equatable, Sendable {
            let id: Int64
            let name: String
        }
        let id: Int64
        let title: String
        let assignee: Assignee?
    }

    /// A person with their to-dos, as a client of a stream reads it.
    struct LiveOwner: FetchableEntity, Codable {
        struct Item: Codable, Equatable, Sendable {
            let id: Int64
            let priority: Int
        }
        let id: Int64
        let name: String
        let todos: [Item]
    }

    /// Whether `follower`'s replica holds the rows `GET path?query` answers now.
    static func replica<Entity: FetchableEntity & Codable>(
        of follower: Follower<Entity>, equalsGET query: String, at base: String
    ) async -> Bool {
        guard let reply = try? await HTTP.send(.GET, "\(base)/\(query)"), reply.status == 200,
            let rows = try? JSONDecoder().decode([Entity].self, from: reply.body)
        else { return false }
        return Array(follower.replica.fetchedObjects) == rows
    }

    @Test("a stream that embeds stays live: a rename is one update of the window's to-dos showing the person")
    func liveManyToOne() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let query = "todos?select=id,title,assignee:people(id,name)&order=priority.desc&limit=3"
            let follower = Follower(
                try await EventStream.open("\(server.base)/\(query.replacing("todos?", with: "todos/events?"))")
                    .updates(of: LiveAssigned.self))
            // A stream of the same query's next rows (Bins, no one's), in the same route: the rename is not its.
            let rest = Follower(
                try await EventStream.open(
                    "\(server.base)/todos/events?select=id,title,assignee:people(id,name)&order=priority.desc&offset=3&limit=3"
                ).updates(of: LiveAssigned.self))
            // Deck (Ann), Call (Bo), Milk (Ann): Bins (no one) is out of the window.
            #expect(await eventually { await Self.replica(of: follower, equalsGET: query, at: server.base) })
            #expect(await eventually { rest.replica.fetchedObjects.map(\.title) == ["Bins"] })
            let before = follower.bases.count

            _ = try await HTTP.send(.PATCH, "\(server.base)/people/1", json: #"{"name":"Ann B."}"#)
            #expect(await eventually { follower.replica.fetchedObjects.first?.assignee?.name == "Ann B." })
            #expect(follower.bases.count == before + 1, "one update for the rename")
            #expect(rest.bases.count == 1, "nothing for a window that shows no one renamed")
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))

            _ = try await HTTP.send(.PATCH, "\(server.base)/people/3", json: #"{"name":"Cyd"}"#)  // no one's
            _ = try await HTTP.send(.PATCH, "\(server.base)/todos/1", json: #"{"assignee_id":2}"#)  // Milk to Bo
            #expect(await eventually { follower.replica.fetchedObjects.last?.assignee?.name == "Bo" })
            #expect(follower.bases.count == before + 2, "nothing for Cy's rename, one update for Milk")
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))
            #expect(follower.failure == nil)
        }
    }

    @Test("the WebSocket stream of an embedding query follows a rename as the Server-Sent Events do")
    func liveOverWebSocket() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let query = "todos?select=id,title,assignee:people(id,name)&order=id.asc"
            let (updates, closed) = WebSocketTests.updates(
                of: LiveAssigned.self,
                at: "ws://127.0.0.1:\(server.port)/\(query.replacing("todos?", with: "todos/updates?"))")
            let follower = Follower(updates)
            #expect(await eventually { await Self.replica(of: follower, equalsGET: query, at: server.base) })
            _ = try await HTTP.send(.PATCH, "\(server.base)/people/2", json: #"{"name":"Bob"}"#)
            #expect(await eventually { follower.replica.fetchedObjects.last?.assignee?.name == "Bob" })
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))
            #expect(follower.failure == nil)
            closed.cancel()
        }
    }

    @Test("a stream that embeds resumes from its Last-Event-ID with one catch-up while its query is live")
    func liveResume() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let url = "\(server.base)/todos/events?select=id,title,assignee:people(id,name)&order=id.asc"
            let holder = Follower(try await EventStream.open(url).updates(of: LiveAssigned.self))  // keeps it live
            let first = Follower(try await EventStream.open(url).updates(of: LiveAssigned.self))
            #expect(await eventually { first.replica.fetchedObjects.count == 4 && holder.replica.version != nil })
            let seen = try #require(first.replica.version)
            first.stop()
            #expect(await eventually { server.endpoint.openStreams == 1 }, "the dropped stream is closed")

            _ = try await HTTP.send(.PATCH, "\(server.base)/people/1", json: #"{"name":"Ann B."}"#)
            #expect(await eventually { holder.replica.fetchedObjects.first?.assignee?.name == "Ann B." })
            let resumed = try await EventStream.open(url, lastEventID: seen.description)
            var updates = resumed.updates(of: LiveAssigned.self).makeAsyncIterator()
            let catchUp = try #require(try await updates.next())
            #expect(catchUp.base == seen, "one catch-up from the version read")
            _ = try first.replica.apply(catchUp)
            #expect(Array(first.replica.fetchedObjects) == Array(holder.replica.fetchedObjects))
        }
    }

    @Test("a stream that embeds, reconnecting after every stream of its query closed, resumes with one catch-up")
    func resumeWithinTheGracePeriod() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let url = "\(server.base)/todos/events?select=id,title,assignee:people(id,name)&order=id.asc"
            let first = Follower(try await EventStream.open(url).updates(of: LiveAssigned.self))
            #expect(await eventually { first.replica.fetchedObjects.count == 4 })
            let seen = try #require(first.replica.version)
            first.stop()
            #expect(await eventually { server.endpoint.openStreams == 0 }, "no stream of the query is open")

            _ = try await HTTP.send(.PATCH, "\(server.base)/people/1", json: #"{"name":"Ann B."}"#)
            let resumed = try await EventStream.open(url, lastEventID: seen.description)
            var updates = resumed.updates(of: LiveAssigned.self).makeAsyncIterator()
            let catchUp = try #require(try await updates.next())
            #expect(catchUp.base == seen, "one catch-up from the version read, not the whole results")
            _ = try first.replica.apply(catchUp)
            // The rename comes in the catch-up, or in an update after it when the catch-up came first.
            for _ in 0..<3 where first.replica.fetchedObjects.first?.assignee?.name != "Ann B." {
                _ = try first.replica.apply(try #require(try await updates.next()))
            }
            #expect(first.replica.fetchedObjects.first?.assignee?.name == "Ann B.")
        }
    }

    @Test("a stream that embeds counts as a live query: beyond the limit it is refused as a plain query is")
    func liveQueryLimit() async throws {
        var options = LiveResultsOptions()
        options.maximumLiveQueries = 2
        options.liveQueryGracePeriod = .milliseconds(100)
        try await RunningServer.with(
            try await MemoryTodoStore(Self.todos, people: Self.people), options: options
        ) { server in
            let embedding = "select=id,title,assignee:people(id,name)"
            let plain = try await EventStream.open("\(server.base)/todos/events?project=eq.Home")
            let embedded = try await EventStream.open("\(server.base)/todos/events?\(embedding)&project=eq.Work")
            #expect(plain.status == 200 && embedded.status == 200)

            let refusedPlain = try await HTTP.send(.GET, "\(server.base)/todos/events?priority=eq.1")
            let refusedEmbedding = try await HTTP.send(.GET, "\(server.base)/todos/events?\(embedding)&priority=eq.1")
            for refused in [refusedPlain, refusedEmbedding] {
                #expect(refused.status == 503 && refused.code == "PGRST003", "\(refused.text)")
                #expect(refused.header("Retry-After") == "1")
            }
            #expect(refusedEmbedding.body == refusedPlain.body)
            #expect(refusedEmbedding.header("Proxy-Status") == refusedPlain.header("Proxy-Status"))
            #expect(refusedEmbedding.header("Content-Type") == refusedPlain.header("Content-Type"))
            withExtendedLifetime((plain, embedded)) {}
        }
    }

    @Test("a stream of people with their to-dos: a child's insert, update and delete update its parent's array")
    func liveOneToMany() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let query =
                "people?select=id,name,todos(id,priority)&order=name.asc&todos.order=priority.desc&todos.limit=1"
            let follower = Follower(
                try await EventStream.open("\(server.base)/\(query.replacing("people?", with: "people/events?"))")
                    .updates(of: LiveOwner.self))
            #expect(await eventually { await Self.replica(of: follower, equalsGET: query, at: server.base) })
            #expect(
                follower.replica.fetchedObjects.map(\.todos) == [
                    [.init(id: 2, priority: 5)], [.init(id: 4, priority: 3)], [],
                ])

            let created = try await HTTP.send(
                .POST, "\(server.base)/todos", json: #"{"title":"Fix","project":"Work","priority":4,"assignee_id":3}"#)
            #expect(created.status == 201)
            #expect(await eventually { follower.replica.fetchedObjects.last?.todos.count == 1 })
            // Deck drops below Milk: Milk is Ann's first now.
            _ = try await HTTP.send(.PATCH, "\(server.base)/todos/2", json: #"{"priority":0}"#)
            #expect(await eventually { follower.replica.fetchedObjects.first?.todos.first?.id == 1 })
            _ = try await HTTP.send(.DELETE, "\(server.base)/todos/4")
            #expect(await eventually { follower.replica.fetchedObjects[1].todos.isEmpty })
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))
            #expect(follower.failure == nil)
        }
    }

    @Test("a stream with !inner and a filter on the embedded name: to-dos enter and leave as people are renamed")
    func liveInner() async throws {
        try await RunningServer.with(try await MemoryTodoStore(Self.todos, people: Self.people)) { server in
            let query = "todos?select=id,title,assignee:people!inner(id,name)&assignee.name=eq.Ann&order=id.asc"
            let follower = Follower(
                try await EventStream.open("\(server.base)/\(query.replacing("todos?", with: "todos/events?"))")
                    .updates(of: LiveAssigned.self))
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == [1, 2] })
            _ = try await HTTP.send(.PATCH, "\(server.base)/people/2", json: #"{"name":"Ann"}"#)
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == [1, 2, 4] })
            _ = try await HTTP.send(.PATCH, "\(server.base)/people/1", json: #"{"name":"Zed"}"#)
            #expect(await eventually { follower.replica.fetchedObjects.map(\.id) == [4] })
            #expect(await Self.replica(of: follower, equalsGET: query, at: server.base))
            #expect(follower.failure == nil)
        }
    }

    @Test("over PostgreSQL's WAL feed (both tables on one feed): one update per transaction of related rows")
    func liveOverTheWALFeed() async throws {
        let postgres = try PostgresTestServer.shared()
        try await postgres.withDatabase { client, _ in
            let store = try await PostgresTodoStore(client: client, changes: .walSQL)
            try await client.query("INSERT INTO people (name) VALUES ('Ann'), ('Bo'), ('Cy')")
            try await client.query(
                """
                INSERT INTO todos (title, project, priority, assignee_id) VALUES ('Milk', 'Home', 2, 1), \
                ('Deck', 'Work', 5, 1), ('Bins', 'Home', 1, NULL), ('Call', 'Work', 3, 2)
                """)
            try await RunningServer.with(store) { server in
                let todos = "todos?select=id,title,assignee:people(id,name)&order=priority.desc&limit=3"
                let people = "people?select=id,name,todos(id,priority)&order=id.asc&todos.order=priority.desc"
                let assigned = Follower(
                    try await EventStream.open("\(server.base)/\(todos.replacing("todos?", with: "todos/events?"))")
                        .updates(of: LiveAssigned.self))
                let owners = Follower(
                    try await EventStream.open("\(server.base)/\(people.replacing("people?", with: "people/events?"))")
                        .updates(of: LiveOwner.self))
                #expect(await eventually { await Self.replica(of: assigned, equalsGET: todos, at: server.base) })
                #expect(await eventually { await Self.replica(of: owners, equalsGET: people, at: server.base) })
                let (assignedBefore, ownersBefore) = (assigned.bases.count, owners.bases.count)

                // One transaction renames Ann and Bo: one update of the three to-dos that show them.
                try await client.query("UPDATE people SET name = name || '!' WHERE id IN (1, 2)")
                #expect(
                    await eventually {
                        assigned.replica.fetchedObjects.compactMap(\.assignee?.name) == ["Ann!", "Bo!", "Ann!"]
                    })
                #expect(assigned.bases.count == assignedBefore + 1, "one update for the transaction")
                // One transaction gives Cy two to-dos: one update of Cy's array.
                try await client.query(
                    "INSERT INTO todos (title, project, priority, assignee_id) VALUES ('A', 'P', 4, 3), ('B', 'P', 0, 3)"
                )
                #expect(await eventually { owners.replica.fetchedObjects.last?.todos.count == 2 })
                #expect(owners.bases.count == ownersBefore + 2, "the rename, then the insert: one update each")
                #expect(await Self.replica(of: assigned, equalsGET: todos, at: server.base))
                #expect(await Self.replica(of: owners, equalsGET: people, at: server.base))
                #expect(assigned.failure == nil && owners.failure == nil)
            }
        }
    }

    /// Random people and to-dos: every person's to-dos (with a filter, order and limit) and the to-dos of one
    /// person's name with `!inner` equal the join computed here.
    @Test(arguments: 0..<6)
    func randomTablesEqualTheJoin(seed: UInt64) async throws {
        var random = SeededRandom(seed: seed)
        let people = (1...6).map {
            Person(id: Int64($0), name: ["Ann", "Bo", "Cy"][Int.random(in: 0..<3, using: &random)])
        }
        let todos = (1...40).map { id in
            Todo(
                id: Int64(id), title: "t\(id)", project: "P", priority: Int.random(in: 0..<6, using: &random),
                assigneeID: Bool.random(using: &random) ? nil : Int64.random(in: 1...7, using: &random))
        }
        let (minimum, limit) = (Int.random(in: 0..<4, using: &random), Int.random(in: 0..<4, using: &random))
        try await RoutedServer.with(try await MemoryTodoStore(todos, people: people)) { server in
            let owners = try await Self.get(
                server,
                "/people?select=id,name,todos(id,title)&order=id.asc&todos.order=priority.desc"
                    + "&todos.priority=gte.\(minimum)&todos.limit=\(limit)",
                as: [Owner].self)
            let expected = people.map { person in
                todos.filter { $0.assigneeID == person.id && $0.priority >= minimum }
                    .sorted { ($0.priority, -$0.id) > ($1.priority, -$1.id) }.prefix(limit).map(\.id)
            }
            #expect(owners.map { $0.todos.map(\.id) } == expected, "seed \(seed)")
            let ann = try await Self.get(
                server, "/todos?select=id,title,assignee:people!inner(id,name)&assignee.name=eq.Ann&order=id.asc",
                as: [Assigned].self)
            let annIDs = Set(people.filter { $0.name == "Ann" }.map(\.id))
            #expect(ann.map(\.id) == todos.filter { $0.assigneeID.map(annIDs.contains) == true }.map(\.id))
            #expect(ann.allSatisfy { $0.assignee?.name == "Ann" })
        }
    }
}
