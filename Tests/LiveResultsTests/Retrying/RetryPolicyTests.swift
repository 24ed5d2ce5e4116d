import Foundation
import LiveResults
import LiveResultsTesting
import Testing

/// Retries of fetches and pages, and the backoff they share with associations (the *LifeOfAQuery* article).
@Suite("Retries and backoff", .timeLimit(.minutes(5)))
struct RetryPolicyTests {
    /// A request that fails its first `failures` calls, then returns `items`.
    final class FlakyRequest: Sendable {
        struct Failure: Error, Equatable {
            var call: Int
        }

        private let calls = Locked(0)
        let failures: Int

        init(failures: Int) {
            self.failures = failures
        }

        var count: Int { calls.withLock { $0 } }

        func callAndMaybeFail() throws {
            let call = calls.withLock { calls in
                calls += 1
                return calls
            }
            if call <= failures { throw Failure(call: call) }
        }
    }

    static let quick = Backoff(initialDelay: .milliseconds(1), maximumDelay: .milliseconds(2))

    func controller(
        _ request: FlakyRequest, maxAttempts: Int, backoff: Backoff = quick, log: EventHarness.DiagnosticLog
    ) -> FetchedResultsController<Item> {
        FetchedResultsController(
            definition: FetchDefinition(
                request: {
                    try request.callAndMaybeFail()
                    return ScenarioFixture.sample
                },
                retry: RetryPolicy(maxAttempts: maxAttempts, backoff: backoff)),
            sortDescriptors: [SortDescriptor(\Item.score)], diagnostics: log.handler)
    }

    @Test func aFetchIsTriedAgainUntilItSucceeds() async throws {
        let (request, log) = (FlakyRequest(failures: 2), EventHarness.DiagnosticLog())
        let controller = controller(request, maxAttempts: 3, log: log)
        let changes = try await controller.performFetch()
        #expect(changes.insertedItems.count == 6)
        #expect(request.count == 3)
        #expect(controller.statistics.retriedRequests == 2)
        let attempts = log.all.compactMap { if case .requestRetried(_, let attempt) = $0 { attempt } else { nil } }
        #expect(attempts == [2, 3])
        #expect(log.fetchFailures.isEmpty && controller.state.isLoaded)
    }

    @Test func theLastFailureCountsWhenTheAttemptsAreSpent() async throws {
        let (request, log) = (FlakyRequest(failures: 10), EventHarness.DiagnosticLog())
        let controller = controller(request, maxAttempts: 3, log: log)
        await #expect(throws: FlakyRequest.Failure(call: 3)) { try await controller.performFetch() }
        #expect(request.count == 3)
        #expect(log.fetchFailures.count == 1, "one failure, after the retries")
        #expect(controller.statistics.failedFetches == 1 && controller.statistics.retriedRequests == 2)
    }

    @Test func noRetryByDefault() async throws {
        let request = FlakyRequest(failures: 1)
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: {
                try request.callAndMaybeFail()
                return [Item]()
            }))
        await #expect(throws: FlakyRequest.Failure.self) { try await controller.performFetch() }
        #expect(request.count == 1)
    }

    @Test(.tags(.concurrent)) func cancellationStopsTheRetries() async throws {
        let (request, log) = (FlakyRequest(failures: 10), EventHarness.DiagnosticLog())
        let controller = controller(request, maxAttempts: 5, backoff: Backoff(initialDelay: .seconds(30)), log: log)
        let fetch = Task { try await controller.performFetch() }
        #expect(
            await EventHarness.eventually(timeout: .seconds(45)) {
                request.count == 1 && controller.statistics.retriedRequests == 1
            })
        fetch.cancel()
        await #expect(throws: CancellationError.self) { try await fetch.value }
        #expect(request.count == 1, "no attempt after the cancellation")
    }

    @Test func aPageRequestIsTriedAgain() async throws {
        let request = FlakyRequest(failures: 1)
        let server = PageServer(items(1...4), pageSize: 2)
        let controller = FetchedResultsController(
            definition: FetchDefinition(
                firstPage: 0,
                pageRequest: { cursor in
                    if cursor == 2 { try request.callAndMaybeFail() }
                    return try await server.page(at: cursor)
                },
                retry: RetryPolicy(maxAttempts: 2, backoff: Self.quick)),
            sortDescriptors: [SortDescriptor(\Item.score)])
        try await controller.performFetch()
        let changes = try await controller.loadNextPage()
        #expect(changes.insertedItemIDs == [3, 4])
        #expect(request.count == 2 && controller.statistics.retriedRequests == 1)
        #expect(controller.pagination.lastError == nil)
    }

    @Test func backoffDoublesUpToItsMaximumAndJitterShortensAWait() {
        let backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .milliseconds(350), jitter: 0.5)
        #expect((0...5).map(backoff.delay(afterFailures:)) == [0, 100, 200, 350, 350, 350].map { .milliseconds($0) })
        var random = SeededGenerator(seed: 9)
        for failures in 1...5 {
            let wait = backoff.wait(afterFailures: failures, using: &random)
            let delay = backoff.delay(afterFailures: failures)
            #expect(wait <= delay && wait >= delay * 0.5, "failures \(failures): \(wait)")
        }
        var same = SeededGenerator(seed: 9)
        #expect(Backoff.default.wait(afterFailures: 2, using: &same) == .milliseconds(200), "no jitter: exact")
        #expect(AssociationBackoff.self == Backoff.self, "associations and retries share one type")
    }

    /// A failure count kept for a long outage, or `Int.max`, returns at once: the doubling stops at the maximum.
    @Test func theLargestFailureCountsReturnTheMaximumAtOnce() {
        let started = ContinuousClock.now
        #expect(Backoff.default.delay(afterFailures: .max) == .seconds(30))
        #expect(Backoff.retries.wait(afterFailures: .max) <= .seconds(10))
        #expect(Backoff(initialDelay: .zero, maximumDelay: .seconds(1)).delay(afterFailures: .max) == .zero)
        #expect(ContinuousClock.now - started < .seconds(1))
    }
}
