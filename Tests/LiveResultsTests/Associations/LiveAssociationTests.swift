import Foundation
@_spi(Testing) import LiveResults
import LiveResultsTesting
import Testing

/// A related entity of live association tests.
struct Author: FetchableEntity {
    let id: Int
    var name: String
}

/// The authors' table and its events: requests read the table, and `write` changes it and publishes the
/// change, as a database and its change feed would.
final class LiveAuthors: Sendable {
    let events = EventBus<Author>()
    let backend = AssociationBackend()
    private let table: Locked<[Int: Author]>

    init(_ ids: some Sequence<Int>) {
        table = Locked(Dictionary(uniqueKeysWithValues: ids.map { ($0, Author(id: $0, name: "a\($0)")) }))
    }

    /// Reads the authors of these ids, recorded (and held at the gate) by ``backend``.
    func fetch(_ ids: [Int]) async throws -> [Int: Author] {
        _ = try await backend.fetch(ids)
        return table.withLock { table in table.filter { ids.contains($0.key) } }
    }

    func name(_ id: Int) -> String? { table.withLock { $0[id]?.name } }

    /// Changes the table, then publishes the events of the change in one batch.
    func write(_ events: [EntityEvent<Author>]) {
        table.withLock { table in
            for event in events {
                switch event {
                case .inserted(let author), .updated(let author): table[author.id] = author
                case .deleted(let id): table[id] = nil
                case .invalidated: break
                }
            }
        }
        self.events.publish(events)
    }

    func rename(_ id: Int, to name: String) { write([.updated(Author(id: id, name: name))]) }

    func authors() -> Association<Post, Author> {
        Association(key: \.authorID, following: events) { try await self.fetch($0) }
    }

    func editors() -> Association<Post, Author> {
        Association(key: \.editorID, following: events) { try await self.fetch($0) }
    }

    func coauthors() -> Association<Post, [Author]> {
        Association(keys: \.tagIDs, following: events) { try await self.fetch($0) }
    }
}

/// Live associations: the cache follows the related source's events, and the entities showing a changed
/// value are reported updated, one change set per batch, with nothing requested again.
@Suite("Live associations", .timeLimit(.minutes(5)), .tags(.concurrent))
struct LiveAssociationTests {
    /// Posts 1–4 by authors 10, 20, 10, 30, every author read and settled.
    static func readAll() async throws -> (PostFixture, LiveAuthors, Association<Post, Author>) {
        let fixture = try await PostFixture.loaded(
            [Post(1, authorID: 10), Post(2, authorID: 20), Post(3, authorID: 10), Post(4, authorID: 30)], fetchSize: 0)
        let related = LiveAuthors([10, 20, 30, 40])
        let authors = related.authors()
        _ = fixture.read(authors, fixture.post(1))
        _ = await fixture.deliveries(1)
        await fixture.settle()
        return (fixture, related, authors)
    }

    func names(_ fixture: PostFixture, _ authors: Association<Post, Author>) -> [String?] {
        (1...4).map { fixture.read(authors, fixture.post($0))?.name }
    }

    @Test func anUpdatedRelatedEntityReplacesItsValueAndReportsExactlyTheEntitiesShowingIt() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        #expect(names(fixture, authors) == ["a10", "a20", "a10", "a30"])
        related.rename(10, to: "Ann")
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [1, 3])
        #expect(names(fixture, authors) == ["Ann", "a20", "Ann", "a30"])
        #expect(related.backend.requests == [[10, 20, 30]], "nothing requested for what the event carried")
        fixture.controller._checkAssociationInvariants()
    }

    @Test func aDeletedRelatedEntityLeavesNoValue() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        related.write([.deleted(20)])
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [2])
        #expect(names(fixture, authors) == ["a10", nil, "a10", "a30"])
        #expect(related.backend.requests.count == 1)
    }

    @Test func aBatchOfRelatedEventsIsOneChangeSetAndTheLastEventOfAKeyWins() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        related.write([
            .updated(Author(id: 10, name: "x")), .updated(Author(id: 30, name: "Cy")),
            .updated(Author(id: 10, name: "Ann")),
        ])
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [1, 3, 4])
        #expect(names(fixture, authors) == ["Ann", "a20", "Ann", "Cy"])
        await fixture.settle()
        #expect(fixture.changeSets.count == 2, "one change set for the batch")
    }

    @Test func anEventAboutAKeyNoEntityShowsDeliversAndRequestsNothing() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        related.write([.inserted(Author(id: 50, name: "new")), .updated(Author(id: 40, name: "Dee"))])
        related.rename(10, to: "Ann")  // a later change, so that the first one had its chance to arrive
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [1, 3])
        await fixture.settle()
        #expect(fixture.changeSets.count == 2)
        #expect(related.backend.requests.count == 1)
        _ = authors
    }

    @Test func anInvalidationDropsTheValuesAndTheNextReadRequestsAgain() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        related.write([.updated(Author(id: 20, name: "Bo")), .invalidated])
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3, 4])
        #expect(fixture.read(authors, fixture.post(2)) == nil, "dropped: the read requests again")
        _ = await fixture.deliveries(3)
        await fixture.settle()
        #expect(names(fixture, authors) == ["a10", "Bo", "a10", "a30"])
        #expect(related.backend.requests == [[10, 20, 30], [10, 20, 30]])
    }

    @Test func aMalformedRelatedEventInvalidatesTheCache() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        related.events.publishMalformedEvent(AssociationBackend.Failure())
        let changes = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3, 4])
        #expect(fixture.read(authors, fixture.post(1)) == nil)
        await fixture.settle()
        #expect(related.backend.requests.count == 2)
    }

    @Test func anEventWhileItsKeyIsRequestedWinsOverTheRequestsResult() async throws {
        let fixture = try await PostFixture.loaded([Post(1, authorID: 10), Post(2, authorID: 20)], fetchSize: 0)
        let related = LiveAuthors([10, 20])
        let authors = related.authors()
        let gate = related.backend.holdRequests()
        _ = fixture.read(authors, fixture.post(1))
        #expect(await related.backend.started(1))
        // The request has read nothing yet; its table is read after the gate, so make it stale by hand.
        related.events.publish(.updated(Author(id: 10, name: "Ann")))
        gate.open()
        _ = await fixture.deliveries(1)
        await fixture.settle()
        #expect(fixture.read(authors, fixture.post(1))?.name == "Ann", "the event's value, not the table's")
        #expect(fixture.read(authors, fixture.post(2))?.name == "a20")
    }

    @Test func anInvalidationWhileARequestIsInFlightMakesItsWaitersRequestAgain() async throws {
        let fixture = try await PostFixture.loaded([Post(1, authorID: 10)], fetchSize: 0)
        let related = LiveAuthors([10])
        let authors = related.authors()
        let gate = related.backend.holdRequests()
        _ = fixture.read(authors, fixture.post(1))
        #expect(await related.backend.started(1))
        related.backend.releaseRequests()
        related.write([.invalidated])
        gate.open()
        _ = await fixture.deliveries(1)
        await fixture.settle()
        #expect(related.backend.requests == [[10], [10]], "the stale result is not cached; 10 is requested again")
        #expect(fixture.read(authors, fixture.post(1))?.name == "a10")
    }

    @Test func memoryPressureDropsTheValuesAndTheAssociationGoesOnFollowing() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        fixture.pressure.send()
        _ = await fixture.deliveries(2)
        _ = fixture.read(authors, fixture.post(1))
        _ = await fixture.deliveries(3)
        await fixture.settle()
        related.rename(30, to: "Cy")
        let changes = try #require(await fixture.deliveries(4).last)
        fixture.expectOnlyUpdates(changes, ids: [4])
        #expect(names(fixture, authors) == ["a10", "a20", "a10", "Cy"])
    }

    @Test func everyControllerUsingTheAssociationIsTold() async throws {
        let (first, related, authors) = try await Self.readAll()
        let second = try await PostFixture.loaded([Post(7, authorID: 10), Post(8, authorID: 40)], fetchSize: 0)
        _ = second.read(authors, second.post(7))
        _ = await second.deliveries(1)
        await second.settle()
        related.rename(10, to: "Ann")
        second.expectOnlyUpdates(try #require(await second.deliveries(2).last), ids: [7])
        first.expectOnlyUpdates(try #require(await first.deliveries(2).last), ids: [1, 3])
        #expect(second.read(authors, second.post(7))?.name == "Ann")
    }

    @Test func aControllerThatIsGoneIsForgottenAndTheOthersAreStillTold() async throws {
        let (fixture, related, authors) = try await Self.readAll()
        weak var gone: FetchedResultsController<Post>?
        do {
            let other = try await PostFixture.loaded([Post(7, authorID: 10)], fetchSize: 0)
            _ = other.read(authors, other.post(7))
            await other.settle()
            gone = other.controller
        }
        #expect(await EventHarness.eventually { gone == nil }, "the association holds its controllers weakly")
        related.rename(10, to: "Ann")
        fixture.expectOnlyUpdates(try #require(await fixture.deliveries(2).last), ids: [1, 3])
    }

    @Test func aLiveAssociationListedInTheDefinitionFollowsFromTheStart() async throws {
        let related = LiveAuthors([10, 20])
        let authors = related.authors()
        let store = PostStore([Post(1, authorID: 10), Post(2, authorID: 20)])
        let recorder = ChangeRecorder<Post>()
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { store.fetch() }, associations: [authors]),
            sortDescriptors: [SortDescriptor(\Post.score)])
        try await controller.performFetch()
        controller.delegate = recorder
        let post = try #require(controller.object(withID: 2))
        #expect(try await controller.loadAssociatedValue(authors, for: post)?.name == "a20")
        related.rename(20, to: "Bo")
        #expect(await EventHarness.eventually { recorder.changeSets.count == 2 })
        #expect(controller.associatedValue(authors, for: post)?.name == "Bo")
        #expect(recorder.changeSets.last?.updatedItemIDs == [2])
    }

    @Test func theOptionalAndArrayFormsFollowTooAndADeletedElementLeavesTheArray() async throws {
        let fixture = try await PostFixture.loaded(
            [Post(1, tagIDs: [10, 20]), Post(2, tagIDs: [20], editorID: 10), Post(3)], fetchSize: 0)
        let related = LiveAuthors([10, 20])
        let (editors, coauthors) = (related.editors(), related.coauthors())
        _ = fixture.read(editors, fixture.post(2))
        _ = fixture.read(coauthors, fixture.post(1))
        await fixture.settle()
        #expect(fixture.read(editors, fixture.post(3)) == nil)
        related.write([.deleted(20), .updated(Author(id: 10, name: "Ann"))])
        // One change set per association the batch touched: coauthors (posts 1 and 2), editors (post 2).
        let changes = await fixture.deliveries(4).suffix(2)
        #expect(Set(changes.map { Set($0.updatedItemIDs) }) == [[1, 2], [2]])
        for changeSet in changes { fixture.expectOnlyUpdates(changeSet, ids: Set(changeSet.updatedItemIDs)) }
        #expect(fixture.read(coauthors, fixture.post(1))?.map(\.name) == ["Ann"])
        #expect(fixture.read(coauthors, fixture.post(2))?.map(\.name) == [])
        #expect(fixture.read(editors, fixture.post(2))?.name == "Ann")
        #expect(related.backend.requests.count == 2)
    }

    /// Random writes of authors and posts, reads, invalidations and memory pressure: after each step
    /// settles, every post reads its author as the table has it, and the change sets hold the contract.
    @Test(arguments: 0..<8) func randomWritesKeepEveryReadValueEqualToTheTable(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed)
        let fixture = try await PostFixture.loaded(
            (1...12).map { Post($0, authorID: Int.random(in: 1...6, using: &random)) }, fetchSize: 4)
        let related = LiveAuthors(1...6)
        let authors = related.authors()
        for step in 0..<60 {
            let (before, seen) = (fixture.model, fixture.changeSets.count)
            var changesPosts = false
            switch Int.random(in: 0..<10, using: &random) {
            case 0..<4:
                related.rename(Int.random(in: 1...6, using: &random), to: "n\(step)")
            case 4:
                related.write([.deleted(Int.random(in: 1...6, using: &random))])
            case 5:
                related.write([.inserted(Author(id: Int.random(in: 1...6, using: &random), name: "i\(step)"))])
            case 6:
                let (id, authorID) = (Int.random(in: 1...12, using: &random), Int.random(in: 1...6, using: &random))
                fixture.update(id) { $0.authorID = authorID }
                changesPosts = true
            case 7:
                if Bool.random(using: &random) { related.write([.invalidated]) } else { fixture.pressure.send() }
            default:
                _ = fixture.read(authors, fixture.post(Int.random(in: 1...12, using: &random)))
            }
            await fixture.settle()
            if !changesPosts {
                for changes in fixture.changeSets.dropFirst(seen) {
                    expectContract(changes, from: before, to: before, alsoUpdated: Set(changes.updatedItemIDs))
                    #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty && changes.movedItems.isEmpty)
                }
            }
            for id in 1...12 {
                let post = fixture.post(id)
                guard let read = fixture.read(authors, post) else { continue }
                #expect(read.name == related.name(post.authorID), "seed \(seed) step \(step) post \(id)")
            }
        }
    }
}

/// The call as a user writes it: a related source held as `any EventSource`, an optional key.
@Suite("Live associations as written") struct LiveAssociationCallTests {
    struct Person: FetchableEntity {
        let id: Int64
        var name: String
    }

    struct Todo: FetchableEntity {
        let id: Int64
        var title: String
        var assigneeID: Int64?
    }

    @Test func theDocumentedCallCompilesAndFollows() async throws {
        let bus = EventBus<Person>()
        let people: any EventSource<Person> = bus
        let table = Locked<[Int64: Person]>([1: Person(id: 1, name: "Ann")])
        let assignees = Association<Todo, Person>(key: \.assigneeID, following: people) { ids in
            table.withLock { table in table.filter { ids.contains($0.key) } }
        }
        let controller = FetchedResultsController(
            definition: FetchDefinition<Todo>(request: { [Todo(id: 1, title: "t", assigneeID: 1)] }),
            sortDescriptors: [SortDescriptor(\Todo.title)])
        try await controller.performFetch()
        let todo = try #require(controller.fetchedObjects.first)
        #expect(try await controller.loadAssociatedValue(assignees, for: todo)?.name == "Ann")
        bus.publish(.updated(Person(id: 1, name: "Anne")))
        #expect(await EventHarness.eventually { controller.associatedValue(assignees, for: todo)?.name == "Anne" })
    }
}
