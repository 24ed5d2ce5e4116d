import Foundation
@_spi(Testing) import LiveResults
import LiveResultsTesting
import Synchronization
import Testing

/// Values arrive on any thread, while events change what is shown: an arrival for an entity that is
/// gone or whose key changed is discarded, and many readers never request a key twice.
@Suite("Association races", .timeLimit(.minutes(5)), .tags(.concurrent))
struct AssociationRaceTests {
    // MARK: Arrival against events, with a gate

    @Test func anArrivalForAnEntityDeletedMeanwhileIsDiscarded() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4), fetchSize: 3)
        let gate = await fixture.heldRead(of: 2)
        fixture.controller.apply(.deleted(2))
        gate.open()
        let changes = try #require(await fixture.deliveries(2).last)
        #expect(changes.updatedItems == [ip(0, 0), ip(0, 1)])
        #expect(changes.updatedItemIDs == [1, 3])
        fixture.expectOnlyUpdates(changes, ids: [1, 3])
        await fixture.settle()

        fixture.backend.releaseRequests()
        fixture.controller.apply(.inserted(Post(2)))
        #expect(fixture.author(2) == nil, "key 20 was dropped with the only entity that waited for it")
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20, 30], [20]])
        #expect(fixture.author(2) == "v20")
    }

    @Test func anArrivalForAnEntityWhoseKeyChangedIsNeverCachedUnderTheNewKey() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let gate = await fixture.heldRead(of: 2)
        fixture.update(2) { $0.authorID = 21 }
        gate.open()
        await fixture.settle()
        #expect(fixture.changeSets.count == 1, "only the update: the arrival served nobody")

        fixture.backend.releaseRequests()
        #expect(fixture.author(2) == nil, "not v20")
        await fixture.settle()
        #expect(fixture.backend.requests == [[20], [21]])
        #expect(fixture.author(2) == "v21")
    }

    @Test func anEntityReadAgainAfterItsKeyChangedGetsOnlyTheNewValue() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let gate = await fixture.heldRead(of: 2)
        fixture.update(2) { $0.authorID = 21 }
        #expect(fixture.author(2) == nil)
        #expect(await fixture.backend.started(2))
        gate.open()
        await fixture.settle()
        #expect(fixture.backend.requests == [[20], [21]])
        #expect(fixture.author(2) == "v21")
        #expect(fixture.changeSets.map(\.updatedItemIDs) == [[2], [2]], "the update, then the arrival of 21")
    }

    @Test func aKeyChangedAndChangedBackJoinsTheRequestStillInFlight() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 1)
        let gate = await fixture.heldRead(of: 2)
        fixture.update(2) { $0.authorID = 21 }
        fixture.update(2) { $0.authorID = 20 }
        #expect(fixture.author(2) == nil, "it waits again, for the request of 20 still in flight")
        gate.open()
        await fixture.settle()
        #expect(fixture.author(2) == "v20")
        #expect(fixture.backend.requests == [[20]])
    }

    @Test func anArrivalAfterAResetIsDiscardedAndTheFetchServesNobodyByMistake() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 3)
        let gate = await fixture.heldRead(of: 1)
        fixture.controller.reset()
        gate.open()
        await fixture.settle()
        try await fixture.controller.performFetch()
        fixture.backend.releaseRequests()
        #expect(fixture.author(1) == nil, "what arrived while nothing was shown was not kept")
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20, 30], [10, 20, 30]])
    }

    // MARK: Many threads

    @Test func manyConcurrentReadersRequestEachKeyOnce() async throws {
        let posts = (1...1_000).map { Post($0, authorID: $0 % 300) }
        let fixture = try await PostFixture.loaded(posts)
        let controller = fixture.controller
        let authors = fixture.authors
        await EventHarness.onThreads(8) { reader in
            var random = SeededGenerator(seed: UInt64(reader) + 1)
            for post in posts.shuffled(using: &random) { _ = controller.associatedValue(authors, for: post) }
        }
        await fixture.settle()
        let keys = fixture.backend.requestedKeys
        #expect(keys.count == Set(keys).count, "no key requested twice")
        #expect(Set(keys) == Set(posts.map(\.authorID)))
        for post in posts { #expect(fixture.author(post.id) == "v\(post.authorID)") }
        let reported = fixture.changeSets.flatMap(\.updatedItemIDs)
        #expect(reported.count == Set(reported).count, "each entity is reported at most once")
        #expect(fixture.backend.requests.count == fixture.changeSets.count, "one change set per arrival")
    }

    @Test func eventsReadsAndArrivalsRacingNeverServeAStaleKey() async throws {
        let posts = (1...80).map { Post($0, authorID: $0 % 20) }
        let fixture = try await PostFixture.loaded(posts, fetchSize: 6)
        let chain = EventHarness.ChainRecorder(initial: fixture.model)
        fixture.controller.delegate = chain
        let controller = fixture.controller
        let authors = fixture.authors
        let pressure = fixture.pressure
        await EventHarness.onThreads(6) { worker in
            var random = SeededGenerator(seed: 100 + UInt64(worker))
            switch worker {
            case 0..<3:  // readers
                for _ in 0..<500 {
                    let id = Int.random(in: 1...80, using: &random)
                    if let post = controller.object(withID: id) { _ = controller.associatedValue(authors, for: post) }
                }
            case 3..<5:  // writers: deletes, inserts, updates that change keys and positions
                for step in 0..<120 {
                    let id = Int.random(in: 1...80, using: &random)
                    let author = Int.random(in: 0..<20, using: &random)
                    switch step % 5 {
                    case 0: controller.apply(.deleted(id))
                    case 1: controller.apply(.inserted(Post(id, authorID: author)))
                    default:
                        let score = Int.random(in: 0..<80, using: &random)
                        controller.apply(.updated(Post(id, score: score, authorID: author)))
                    }
                }
            default:
                for _ in 0..<5 {
                    // Real time: spreads the pressure signals over the other threads' events, in the race tested.
                    usleep(2_000)
                    pressure.send()
                }
            }
        }
        await fixture.settle()
        // Read everything until every value is cached: each must be its shown key's value.
        var rounds = 0
        while fixture.controller.fetchedObjects.contains(where: { fixture.read(authors, $0) == nil }), rounds < 100 {
            await fixture.settle()
            rounds += 1
        }
        for post in fixture.controller.fetchedObjects {
            #expect(fixture.read(authors, post) == "v\(post.authorID)", "post \(post.id)")
        }
        chain.expectChain(associations: true)
        #expect(chain.deliveryCount > 0)
    }
}
