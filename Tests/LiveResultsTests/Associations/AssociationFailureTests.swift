import Foundation
@_spi(Testing) import LiveResults
import Testing

/// A request that throws leaves its entities without a value, is reported, and pauses the
/// association's requests for a bounded, growing backoff; it never blocks the controller.
@Suite("Association failures", .timeLimit(.minutes(5)), .tags(.concurrent))
struct AssociationFailureTests {
    @Test func aThrowingRequestIsReportedAndPausesTheRequests() async throws {
        let backoff = AssociationBackoff(initialDelay: .seconds(60), maximumDelay: .seconds(60))
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), backoff: backoff)
        fixture.backend.isFailing = true
        #expect(fixture.author(1) == nil)
        await fixture.settle()
        #expect(await EventHarness.eventually { fixture.failures.count == 1 }, "reported after the lock")
        #expect(fixture.failures.first is AssociationBackend.Failure)
        #expect(fixture.controller.statistics.failedAssociationRequests == 1)
        #expect(fixture.changeSets.isEmpty, "a failure is no change")

        fixture.backend.isFailing = false
        for id in [1, 2, 3] { #expect(fixture.author(id) == nil, "during the backoff a read requests nothing") }
        await fixture.settle()
        #expect(fixture.backend.requests.count == 1)
    }

    @Test func aFailedRequestIsRetriedAfterTheBackoff() async throws {
        let backoff = AssociationBackoff(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(20))
        let fixture = try await PostFixture.loaded(PostFixture.numbered(3), backoff: backoff)
        fixture.backend.isFailing = true
        await fixture.readAndSettle(1)
        fixture.backend.isFailing = false
        let retried = await EventHarness.eventually {
            _ = fixture.author(1)
            return fixture.backend.requests.count == 2
        }
        #expect(retried, "after the backoff a read requests again")
        let changes = try #require(await fixture.deliveries(1).first)
        fixture.expectOnlyUpdates(changes, ids: [1, 2, 3])
        await fixture.settle()
        #expect(fixture.author(1) == "v10")
        #expect(fixture.backend.requests == [[10, 20, 30], [10, 20, 30]])
        #expect(fixture.failures.count == 1)
    }

    @Test func theBackoffIsPerAssociationAndTheControllerKeepsWorking() async throws {
        // A back-off longer than the test, so that "authors back off" holds however slowly a loaded machine runs it
        // (with the default second, a run that took three minutes saw the authors requested again).
        let backoff = AssociationBackoff(initialDelay: .seconds(600), maximumDelay: .seconds(600))
        let fixture = try await PostFixture.loaded([Post(1, tagIDs: [5]), Post(2, tagIDs: [6])], backoff: backoff)
        let tags = fixture.backend.tags()
        let gate = await fixture.heldRead(of: 1)
        // A request in flight does not hold the controller: events and reads go on.
        fixture.controller.apply(.inserted(Post(3)))
        #expect(fixture.controller.fetchedObjects.map(\.id) == [1, 2, 3])
        fixture.backend.isFailing = true
        gate.open()
        await fixture.settle()
        #expect(await EventHarness.eventually { fixture.failures.count == 1 })

        fixture.backend.releaseRequests()
        fixture.backend.isFailing = false
        #expect(fixture.author(1) == nil, "authors back off")
        #expect(fixture.read(tags, fixture.post(1)) == nil, "tags do not")
        await fixture.settle()
        #expect(fixture.backend.requests == [[10, 20], [5, 6]])
        #expect(fixture.read(tags, fixture.post(2)) == ["v6"])
    }

    @Test func theAsyncReadThrowsTheRequestsErrorThenTheLastErrorDuringTheBackoff() async throws {
        let backoff = AssociationBackoff(initialDelay: .seconds(60), maximumDelay: .seconds(60))
        let fixture = try await PostFixture.loaded(PostFixture.numbered(2), backoff: backoff)
        fixture.backend.isFailing = true
        await #expect(throws: AssociationBackend.Failure()) {
            try await fixture.controller.loadAssociatedValue(fixture.authors, for: fixture.post(1))
        }
        fixture.backend.isFailing = false
        await #expect(throws: AssociationBackend.Failure()) {
            try await fixture.controller.loadAssociatedValue(fixture.authors, for: fixture.post(2))
        }
        #expect(fixture.backend.requests.count == 1)
        await fixture.settle()
    }

    @Test(arguments: [(0, 0), (1, 100), (2, 200), (3, 400), (8, 12_800), (9, 25_600), (10, 30_000), (1_000, 30_000)])
    func theDefaultBackoffDoublesFromATenthOfASecondToThirtySeconds(failures: Int, milliseconds: Int) {
        #expect(AssociationBackoff.default.delay(afterFailures: failures) == .milliseconds(milliseconds))
    }
}
