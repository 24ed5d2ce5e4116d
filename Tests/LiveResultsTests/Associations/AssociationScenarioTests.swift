import Foundation
@_spi(Testing) import LiveResults
import Testing

/// The association scenarios of Square's FetchRequests, restated for LiveResults (the *AssociatedValues* article).
@Suite("Association scenarios", .timeLimit(.minutes(5)))
struct AssociationScenarioTests {
    // MARK: Windows

    @Test func readingTheThirdOfFourRequestsTheKeysOfEntitiesTwoToFour() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4), fetchSize: 3)
        let gate = fixture.backend.holdRequests()
        #expect(fixture.author(3) == nil, "not cached yet")
        for id in [2, 3, 4] { #expect(fixture.author(id) == nil, "in flight: no request") }
        gate.open()
        await fixture.settle()
        #expect(fixture.backend.requests == [[20, 30, 40]])
        for id in [2, 3, 4] { #expect(fixture.author(id) == "v\(id * 10)") }
        await fixture.settle()
        #expect(fixture.backend.requests == [[20, 30, 40]], "nothing more on the next reads")

        #expect(fixture.author(1) == nil)
        await fixture.settle()
        #expect(fixture.backend.requests == [[20, 30, 40], [10]], "the window 1–3 skips the cached 2 and 3")
        #expect(fixture.author(1) == "v10")
    }

    @Test(arguments: [
        // (size, position read, count) → window
        (3, 2, 4, 1..<4), (3, 0, 4, 0..<3), (3, 3, 4, 1..<4), (4, 2, 10, 0..<4), (4, 5, 10, 3..<7),
        (10, 4, 5, 0..<5), (1, 3, 4, 3..<4), (0, 2, 4, 0..<4), (2, 0, 1, 0..<1),
    ])
    func theWindowIsCenteredOnTheEntityAndKeptInsideTheResults(
        size: Int, position: Int, count: Int, window: Range<Int>
    ) async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(count), fetchSize: size)
        _ = fixture.author(position + 1)
        await fixture.settle()
        #expect(fixture.backend.requests == [window.map { ($0 + 1) * 10 }])
    }

    @Test func theWindowFollowsDisplayOrderAcrossSections() async throws {
        // Display order: a: 4, 1 | b: 5, 2 | c: 6, 3 (sections by topic, then by score).
        let posts = [
            Post(1, topic: "a", score: 2), Post(2, topic: "b", score: 2), Post(3, topic: "c", score: 2),
            Post(4, topic: "a", score: 1), Post(5, topic: "b", score: 1), Post(6, topic: "c", score: 1),
        ]
        let fixture = try await PostFixture.loaded(posts, sectioned: true, fetchSize: 4)
        #expect(fixture.model.ids == [[4, 1], [5, 2], [6, 3]])
        _ = fixture.author(2)  // position 3: the window is positions 1–4
        let changes = try #require(await fixture.deliveries(1).first)
        #expect(fixture.backend.requests == [[10, 50, 20, 60]])
        #expect(changes.updatedItems == [ip(0, 1), ip(1, 0), ip(1, 1), ip(2, 0)])
        #expect(changes.updatedItemIDs == [1, 5, 2, 6])
        fixture.expectOnlyUpdates(changes, ids: [1, 5, 2, 6])
        await fixture.settle()
    }

    @Test func sizeZeroRequestsEveryEntityShownAndEachSharedKeyOnce() async throws {
        let posts = (1...25).map { Post($0, authorID: $0 % 7) }
        let fixture = try await PostFixture.loaded(posts, fetchSize: 0)
        _ = fixture.author(12)
        await fixture.settle()
        #expect(fixture.backend.requests == [[1, 2, 3, 4, 5, 6, 0]])
        for post in posts { #expect(fixture.author(post.id) == "v\(post.id % 7)") }
        #expect(fixture.backend.requests.count == 1)
    }

    // MARK: Arrival

    @Test func eachArrivalIsOneChangeSetOfUpdatesAtTheRightIndexPaths() async throws {
        let fixture = try await PostFixture.loaded(
            PostFixture.numbered(9, topic: { $0 <= 3 ? "a" : $0 <= 6 ? "b" : "c" }), sectioned: true, fetchSize: 3)
        let stream = fixture.controller.changes
        _ = fixture.author(5)  // b: 4, 5, 6
        let first = try #require(await fixture.deliveries(1).last)
        #expect(first.updatedItems == [ip(1, 0), ip(1, 1), ip(1, 2)])
        #expect(first.updatedItemIDs == [4, 5, 6])
        fixture.expectOnlyUpdates(first, ids: [4, 5, 6])

        _ = fixture.author(7)  // positions 5–7: 6 is cached, so 7 and 8
        let second = try #require(await fixture.deliveries(2).last)
        #expect(second.updatedItems == [ip(2, 0), ip(2, 1)])
        #expect(second.updatedItemIDs == [7, 8])
        fixture.expectOnlyUpdates(second, ids: [7, 8])
        #expect(fixture.backend.requests == [[40, 50, 60], [70, 80]])

        let streamed = await EventHarness.collect(2, from: stream)
        #expect(streamed == [first, second], "the changes stream sees the same change sets, once each")
        await fixture.settle()
        #expect(fixture.changeSets.count == 2)
    }

    @Test func anEntityWhoseKeysAreCachedIsServedWithoutARequestOrAChangeSet() async throws {
        let posts = [Post(1, authorID: 7), Post(2, authorID: 8), Post(3, authorID: 7)]
        let fixture = try await PostFixture.loaded(posts, fetchSize: 2)
        await fixture.readAndSettle(1)
        #expect(fixture.backend.requests == [[7, 8]])
        #expect(fixture.author(3) == "v7", "post 3 shares post 1's author")
        #expect(fixture.backend.requests == [[7, 8]])
        #expect(fixture.changeSets.count == 1)
    }

    @Test func aMissingValueIsCachedAndNotRequestedTwice() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), fetchSize: 3)
        fixture.backend.missing = [20]
        _ = fixture.author(2)
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3])  // "no value" is news too
        await fixture.settle()
        for _ in 0..<3 { #expect(fixture.author(2) == nil) }
        #expect(fixture.backend.requests == [[10, 20, 30]], "the missing value is not requested again")
        #expect(fixture.author(1) == "v10")
    }

    // MARK: Invalidation

    @Test func changingOneKeyRequestsOnlyThatKey() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(5))
        await fixture.readAndSettle(1)

        let changes = fixture.update(3) { $0.authorID = 99 }
        #expect(changes.updatedItemIDs == [3])
        #expect(fixture.author(3) == nil, "its value is dropped")
        for id in [1, 2, 4, 5] { #expect(fixture.author(id) == "v\(id * 10)") }
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20, 30, 40, 50], [99]])
        #expect(fixture.author(3) == "v99")
    }

    @Test func anUpdateThatKeepsTheKeyKeepsTheValue() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4))
        await fixture.readAndSettle(1)
        let changes = fixture.update(1) { $0.score = 100 }
        #expect(changes.movedItemIDs == [1])
        #expect(fixture.author(1) == "v10")
        #expect(fixture.backend.requests.count == 1)
    }

    @Test func aDeletedEntityDropsItsValueButASharedKeyStays() async throws {
        let posts = [Post(1, authorID: 7), Post(2, authorID: 7), Post(3, authorID: 8)]
        let fixture = try await PostFixture.loaded(posts)
        await fixture.readAndSettle(1)
        #expect(fixture.author(2) == "v7")

        fixture.controller.apply(.deleted(1))
        #expect(fixture.author(2) == "v7", "post 2 still uses author 7")
        fixture.controller.apply([.deleted(2), .deleted(3)])
        fixture.controller.apply([.inserted(Post(4, authorID: 7)), .inserted(Post(3, authorID: 8))])
        #expect(fixture.author(4) == nil, "no post used author 7 any more: its value was dropped")
        await fixture.settle()
        #expect(fixture.backend.requests == [[7, 8], [8, 7]], "post 3 (score 3) comes before post 4")
    }

    @Test func resetKeepsTheCacheAndTheNextFetchReconcilesIt() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4))
        await fixture.readAndSettle(1)

        fixture.controller.reset()
        #expect(fixture.read(fixture.authors, Post(1)) == nil, "nothing is shown after a reset")
        fixture.store.update { posts in
            posts[1].authorID = 21  // post 2's key changed
            posts.remove(at: 2)  // post 3 is gone
        }
        try await fixture.controller.performFetch()
        #expect(fixture.author(1) == "v10")
        #expect(fixture.author(4) == "v40")
        #expect(fixture.backend.requests == [[10, 20, 30, 40]], "values whose keys did not change are kept")
        #expect(fixture.author(2) == nil)
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20, 30, 40], [21]])

        fixture.controller.apply(.inserted(Post(3)))
        #expect(fixture.author(3) == nil, "post 3 was unserved when it was not in the fetch result")
        await fixture.settle()
        #expect(fixture.backend.requests.last == [30])
    }

    @Test func aRefetchKeepsTheValuesWhoseKeysDidNotChange() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3))
        await fixture.readAndSettle(1)
        fixture.store.update { $0[0].authorID = 11 }
        fixture.controller.apply(.invalidated)
        #expect(await EventHarness.eventually { fixture.controller.object(withID: 1)?.authorID == 11 })
        #expect(fixture.author(2) == "v20")
        #expect(fixture.author(1) == nil)
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20, 30], [11]])
    }

    // MARK: Memory pressure

    @Test func memoryPressureClearsTheCacheAndReportsTheEntitiesThatHadValues() async throws {
        let fixture = try await PostFixture.loaded(
            PostFixture.numbered(6, topic: { $0 % 2 == 0 ? "even" : "odd" }), sectioned: true, fetchSize: 4)
        _ = fixture.author(1)  // even: 2, 4, 6 | odd: 1, 3, 5 → positions 1–4: 4, 6, 1, 3
        await fixture.settle()
        #expect(fixture.changeSets.count == 1)

        fixture.pressure.send()
        let changes = try #require(await fixture.deliveries(2).last)
        #expect(changes.updatedItems == [ip(0, 1), ip(0, 2), ip(1, 0), ip(1, 1)])
        fixture.expectOnlyUpdates(changes, ids: [4, 6, 1, 3])

        #expect(fixture.author(1) == nil, "the cache is empty")
        await fixture.settle()
        #expect(fixture.backend.requests == [[40, 60, 10, 30], [40, 60, 10, 30]], "so the next read requests again")
        #expect(fixture.author(1) == "v10")

        fixture.controller.reset()
        fixture.pressure.send()
        await fixture.settle()
        #expect(fixture.changeSets.count == 4, "the arrival, then the reset; nothing shown had a value")
    }

    @Test func memoryPressureLetsRequestsInFlightServeTheirEntities() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(4), fetchSize: 2)
        await fixture.readAndSettle(1)
        let gate = await fixture.heldRead(of: 4)
        fixture.pressure.send()
        let dropped = try #require(await fixture.deliveries(2).last)
        fixture.expectOnlyUpdates(dropped, ids: [1, 2])
        gate.open()
        let arrived = try #require(await fixture.deliveries(3).last)
        fixture.expectOnlyUpdates(arrived, ids: [3, 4])
        await fixture.settle()
        #expect(fixture.author(4) == "v40")
        #expect(fixture.backend.requests == [[10, 20], [30, 40]])
    }

    // MARK: Registration

    @Test func associationsNotListedInTheDefinitionWorkWhenFirstRead() async throws {
        let fixture = PostFixture(PostFixture.numbered(3), listed: false)
        try await fixture.controller.performFetch()
        let tags = fixture.backend.tags()
        #expect(fixture.read(tags, fixture.post(1)) == [], "no tags, no request")
        #expect(fixture.author(1) == nil)
        await fixture.settle()
        #expect(fixture.author(1) == "v10")
        fixture.pressure.send()
        #expect(fixture.author(1) == nil, "lazily registered associations are cleared too")
        await fixture.settle()
    }

    @Test func anEntityThatIsNotShownHasNoValueAndRequestsNothing() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(2))
        #expect(fixture.read(fixture.authors, Post(9)) == nil)
        #expect(try await fixture.controller.loadAssociatedValue(fixture.authors, for: Post(9)) == nil)
        #expect(fixture.backend.requests.isEmpty)
    }
}
