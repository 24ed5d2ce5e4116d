import Foundation
@_spi(Testing) import LiveResults
import Testing

/// What a scroll costs: reading every entity in display order, 10,000 of them with the default window.
///
/// The window is centered on the entity read, so scrolling forward, each request covers the part of
/// the window ahead that is not cached or in flight yet: the entity read and the `h = size - size / 2 - 1`
/// after it. After the first request (a whole window), that is one request of `h + 1` keys every
/// `h + 1` entities: 1 + ⌈(10,000 − size) / (h + 1)⌉ requests. With the default size of 10, 1,999
/// requests of 5 keys (the first of 10), and each key is requested exactly once.
@Suite("Association scroll cost", .timeLimit(.minutes(5)))
struct AssociationScrollTests {
    /// (entities, window size) → requests. The first row is the number the issue asks for.
    @Test(arguments: [(10_000, 10, 1_999), (200, 20, 19), (200, 3, 100), (200, 0, 1)])
    func scrollingThroughEveryEntity(count: Int, fetchSize: Int, expectedRequests: Int) async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(count), fetchSize: fetchSize)
        await Self.scroll(fixture)
        await fixture.settle()
        #expect(fixture.backend.requests.count == expectedRequests)
        #expect(fixture.backend.requestedKeys.count == count, "every key once")
        #expect(Set(fixture.backend.requestedKeys).count == count)
        #expect(fixture.changeSets.count == expectedRequests, "one change set per request")
        await Self.scroll(fixture)
        await fixture.settle()
        #expect(fixture.backend.requests.count == expectedRequests, "a second scroll is free")
    }

    @Test func waitingForEachValueCostsTheSame() async throws {
        let fixture = try await PostFixture.loaded(PostFixture.numbered(200))
        for post in fixture.controller.fetchedObjects {
            #expect(try await fixture.controller.loadAssociatedValue(fixture.authors, for: post) == "v\(post.authorID)")
        }
        let expected = 1 + (200 - 10) / 5
        #expect(fixture.backend.requests.count == expected)
    }

    @Test func theDefaultWindowIsTenEntities() {
        let controller = FetchedResultsController(definition: FetchDefinition<Post>(request: { [] }))
        #expect(controller.associatedFetchSize == 10)
    }

    /// Reads every entity in display order, on a dispatch thread.
    static func scroll(_ fixture: PostFixture) async {
        await EventHarness.onThreads(1) { _ in
            for post in fixture.controller.fetchedObjects {
                _ = fixture.controller.associatedValue(fixture.authors, for: post)
            }
        }
    }
}
