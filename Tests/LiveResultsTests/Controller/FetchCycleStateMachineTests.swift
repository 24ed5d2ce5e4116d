import Foundation
@testable import LiveResults
import Testing

/// The fetch cycle's transitions, one test each (or a few, for a transition from several states), on the value
/// alone: which events apply, which results are shown or dropped, and what the superseded fetches' callers do.
/// The tests are `async` only to make the continuations of those callers (``Waiter``); every transition runs
/// synchronously, and hands back the continuations it releases for the controller to resume after its lock.
@Suite("Fetch cycle state machine", .timeLimit(.minutes(1)))
struct FetchCycleStateMachineTests {
    typealias Cycle = _FetchCycle<Item>

    struct Failure: Error, Equatable {
        var code = 1
    }

    /// The caller of a superseded `performFetch()`: its continuation, and what it did once resumed.
    struct Waiter {
        let continuation: _FetchWaiters.Continuation
        let outcome: Task<String, Never>

        /// A caller suspended in a continuation.
        static func make() async throws -> Waiter {
            let box = Locked<_FetchWaiters.Continuation?>(nil)
            let outcome = Task {
                do {
                    try await withCheckedThrowingContinuation { continuation in box.withLock { $0 = continuation } }
                    return "returned"
                } catch {
                    return "threw \(error)"
                }
            }
            try #require(await EventHarness.eventually { box.withLock { $0 != nil } })
            return Waiter(continuation: try #require(box.withLock { $0 }), outcome: outcome)
        }
    }

    /// Resumes `continuations` as the controller does after its lock: normally, or with `error`.
    static func resume(_ continuations: [_FetchWaiters.Continuation], throwing error: (any Error)? = nil) {
        for continuation in continuations {
            if let error { continuation.resume(throwing: error) } else { continuation.resume() }
        }
    }

    /// A cycle showing a request's results, not fetching.
    static func live() -> Cycle {
        var cycle = Cycle()
        let (generation, _) = cycle.start()
        _ = cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false)
        return cycle
    }

    /// Whether `cycle` waits with `waiter` as the caller of a fetch of `generation`, and the waiters it holds.
    static func waits(_ cycle: inout Cycle, _ waiter: Waiter, superseding generation: UInt64) -> Bool {
        let token = cycle.makeWaiterToken()
        guard case .wait = cycle.wait(superseding: generation, waiter.continuation, token: token, isCancelled: false)
        else { return false }
        return true
    }

    static func shown(_ action: Cycle.ResultAction) -> (replaying: [EntityEvent<Item>], resuming: Int)? {
        guard case .show(let events, let resuming) = action else { return nil }
        return (events, resuming.count)
    }

    // MARK: start

    @Test func aFirstFetchShowsNothingMeanwhile() {
        var cycle = Cycle()
        #expect(cycle.fetchState.isIdle && !cycle.isFetching && !cycle.isLive)
        let (generation, isLive) = cycle.start()
        #expect(generation == 1 && !isLive)
        #expect(cycle.fetchState.isLoading && cycle.isFetching && !cycle.isLive && cycle.origin == .none)
    }

    @Test func aRefetchKeepsShowingTheResults() {
        var cycle = Self.live()
        let (generation, isLive) = cycle.start()
        #expect(generation == 2 && isLive)
        #expect(cycle.fetchState.isLoading && cycle.isLive && cycle.origin == .request)
    }

    @Test func aFetchAfterAFailedOneIsLoading() {
        var cycle = Self.live()
        let (generation, _) = cycle.start()
        _ = cycle.failed(generation: generation, Failure())
        #expect(cycle.fetchState.error as? Failure == Failure())
        _ = cycle.start()
        #expect(cycle.fetchState.isLoading && cycle.origin == .request)
    }

    @Test func aFetchDuringAnotherSupersedesItAndTakesOverItsEventsAndWaiters() async throws {
        var cycle = Cycle()
        let first = cycle.start().generation
        #expect(cycle.receive([.inserted(Item(7))]) == .keep)
        let second = cycle.start().generation
        #expect(!cycle.isCurrent(first) && cycle.isCurrent(second))
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: first))
        #expect(
            cycle.resultArrived(generation: first, from: .request, refreshing: false, invalidationWaiting: false)
                .isDrop, "the first's result is dropped")
        let shown = Self.shown(
            cycle.resultArrived(generation: second, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.replaying == [.inserted(Item(7))] && shown?.resuming == 1)
        Self.resume([waiter.continuation])
        #expect(await waiter.outcome.value == "returned")
    }

    // MARK: receive

    @Test func eventsWhileNothingIsShownAndNothingFetchesAreIgnored() {
        var cycle = Cycle()
        #expect(cycle.receive([.deleted(1), .invalidated]) == .ignore)
        #expect(cycle.fetchState.isIdle)
    }

    @Test func eventsWhileLiveApplyAndAreNotKept() {
        var cycle = Self.live()
        #expect(cycle.receive([.deleted(1)]) == .apply)
        let generation = cycle.start().generation
        let shown = Self.shown(
            cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.replaying == [], "no fetch was in flight")
    }

    @Test func eventsDuringAFirstFetchAreKeptForItsResult() {
        var cycle = Cycle()
        let generation = cycle.start().generation
        #expect(cycle.receive([.inserted(Item(1))]) == .keep)
        #expect(cycle.receive(CollectionOfOne(.deleted(2))) == .keep)
        let shown = Self.shown(
            cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.replaying == [.inserted(Item(1)), .deleted(2)])
    }

    @Test func eventsDuringARefetchApplyAndAreReplayedOntoItsResult() {
        var cycle = Self.live()
        let generation = cycle.start().generation
        #expect(cycle.receive([.updated(Item(1, score: 4))]) == .apply)
        #expect(cycle.receive([.invalidated]) == .apply, "applying it starts the refetch")
        #expect(cycle.isCurrent(generation), "nothing shown is stale: the refetch supersedes it when it starts")
        let shown = Self.shown(
            cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.replaying == [.updated(Item(1, score: 4)), .invalidated])
    }

    /// An invalidation during the first fetch: its result is dropped at once, under the lock, so that it is never
    /// shown; its caller waits for the refetch the invalidation starts.
    @Test func anInvalidationDuringAFirstFetchSupersedesIt() async throws {
        var cycle = Cycle()
        let first = cycle.start().generation
        #expect(cycle.receive([.inserted(Item(1)), .invalidated]) == .refetch)
        #expect(!cycle.isCurrent(first) && cycle.isFetching)
        #expect(
            cycle.resultArrived(generation: first, from: .request, refreshing: false, invalidationWaiting: false)
                .isDrop)
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: first), "the refetch is due")
        let refetch = cycle.start().generation
        let shown = Self.shown(
            cycle.resultArrived(generation: refetch, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.resuming == 1)
        #expect(shown?.replaying == [.inserted(Item(1)), .invalidated], "the refetch replays what came since")
        Self.resume([waiter.continuation])
        #expect(await waiter.outcome.value == "returned")
    }

    // MARK: resultArrived

    @Test func aCurrentResultIsShownAndTheCycleGoesLive() {
        var cycle = Cycle()
        let generation = cycle.start().generation
        let shown = Self.shown(
            cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(shown?.replaying == [] && shown?.resuming == 0)
        #expect(cycle.fetchState.isLoaded && cycle.isLive && !cycle.isFetching && cycle.origin == .request)
    }

    @Test func aResultAfterAResetIsDropped() {
        var cycle = Cycle()
        let generation = cycle.start().generation
        _ = cycle.reset()
        #expect(
            cycle.resultArrived(generation: generation, from: .request, refreshing: false, invalidationWaiting: false)
                .isDrop)
        #expect(cycle.fetchState.isIdle && !cycle.isLive)
    }

    /// A refetch's result ready while a source's `.invalidated` waits in the inbox, behind a batch another thread
    /// delivers: the result predates it, so it is dropped, and its caller waits for the refetch the invalidation
    /// starts once the drainer applies it.
    @Test func aResultIsDroppedWhileAnInvalidationWaitsInTheInbox() async throws {
        var cycle = Self.live()
        var inbox = _EventInbox<Item>()
        // Another thread delivers this batch, its own, applied without queueing (its observer blocks)…
        #expect(inbox.receive([.inserted(Item(3))]) == .drain)
        #expect(inbox.receive([.invalidated]) == .queued)  // …and the invalidation waits behind it
        let generation = cycle.start().generation
        let action = cycle.resultArrived(
            generation: generation, from: .request, refreshing: false, invalidationWaiting: inbox.holdsInvalidation)
        #expect(action.isDrop)
        #expect(cycle.isFetching && !cycle.isCurrent(generation), "the refetch takes its place")
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: generation), "its caller waits, not returns early")
        // The drainer applies the invalidation (the cycle is live: it applies), which starts the refetch.
        guard case .apply(let batch) = inbox.nextBatch() else { Issue.record("the invalidation waits"); return }
        #expect(cycle.receive(batch) == .apply)
        let refetch = cycle.start().generation
        let shown = Self.shown(
            cycle.resultArrived(
                generation: refetch, from: .request, refreshing: false, invalidationWaiting: inbox.holdsInvalidation))
        #expect(shown?.resuming == 1 && cycle.fetchState.isLoaded)
        Self.resume([waiter.continuation])
        #expect(await waiter.outcome.value == "returned")
    }

    /// Saved results shown while a request follows: the fetch stays in flight, keeps its events for the
    /// request's result, and its waiters wait for that result.
    @Test func savedResultsShownWhileARequestFollows() async throws {
        let savedAt = ResultsOrigin.cache(savedAt: .init(timeIntervalSince1970: 100))
        var cycle = Cycle()
        let first = cycle.start().generation
        let second = cycle.start().generation
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: first))
        let cached = Self.shown(
            cycle.resultArrived(generation: second, from: savedAt, refreshing: true, invalidationWaiting: true))
        #expect(cached?.resuming == 0, "the waiters wait for the request")
        #expect(cycle.fetchState.isLoading && cycle.isLive && cycle.origin == savedAt)
        #expect(cycle.receive([.deleted(1)]) == .apply, "events apply to the saved results")
        let requested = Self.shown(
            cycle.resultArrived(generation: second, from: .request, refreshing: false, invalidationWaiting: false))
        #expect(requested?.replaying == [.deleted(1)] && requested?.resuming == 1)
        #expect(cycle.fetchState.isLoaded && cycle.origin == .request)
        Self.resume([waiter.continuation])
        #expect(await waiter.outcome.value == "returned")
    }

    // MARK: failed

    @Test func aFirstFetchFailingLeavesNothingShown() {
        var cycle = Cycle()
        let generation = cycle.start().generation
        guard case .fail(let resuming) = cycle.failed(generation: generation, Failure()) else {
            Issue.record("the current fetch's failure counts")
            return
        }
        #expect(resuming.isEmpty)
        #expect(cycle.fetchState.error as? Failure == Failure() && !cycle.isLive && !cycle.isFetching)
        #expect(cycle.receive([.deleted(1)]) == .ignore)
    }

    @Test func aRefetchFailingLeavesTheResultsShown() {
        var cycle = Self.live()
        let generation = cycle.start().generation
        _ = cycle.failed(generation: generation, Failure())
        #expect(cycle.fetchState.error as? Failure == Failure() && cycle.isLive && cycle.origin == .request)
        #expect(cycle.receive([.deleted(1)]) == .apply)
    }

    @Test func aSupersededFailureIsDropped() {
        var cycle = Self.live()
        let first = cycle.start().generation
        _ = cycle.start()
        guard case .drop = cycle.failed(generation: first, Failure()) else {
            Issue.record("a newer fetch runs")
            return
        }
        #expect(cycle.fetchState.isLoading)
    }

    /// The newest fetch failing fails the callers it superseded, with its error, whatever their own requests
    /// gave; a caller that comes later fails too.
    @Test func theNewestFetchFailingFailsTheSupersededCallers() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        let second = cycle.start().generation
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: first))
        guard case .fail(let resuming) = cycle.failed(generation: second, Failure(code: 2)) else {
            Issue.record("the newest fetch's failure counts")
            return
        }
        #expect(resuming.count == 1)
        Self.resume(resuming, throwing: Failure(code: 2))
        #expect(await waiter.outcome.value == "threw \(Failure(code: 2))")
        let late = try await Waiter.make()
        guard case .fail(let error) = cycle.wait(superseding: first, late.continuation, token: 9, isCancelled: false)
        else {
            Issue.record("a late caller fails at once")
            return
        }
        #expect(error as? Failure == Failure(code: 2))
        late.continuation.resume()
    }

    // MARK: reset

    /// A reset ends the superseded callers' wait: they return, and nothing is shown; a caller that comes later
    /// returns at once, even while a newer fetch runs.
    @Test func aResetEndsTheWait() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        _ = cycle.start()
        let waiter = try await Waiter.make()
        #expect(Self.waits(&cycle, waiter, superseding: first))
        let resuming = cycle.reset()
        #expect(resuming.count == 1)
        #expect(cycle.fetchState.isIdle && !cycle.isLive && !cycle.isFetching && cycle.origin == .none)
        Self.resume(resuming)
        #expect(await waiter.outcome.value == "returned")
        _ = cycle.start()
        let late = try await Waiter.make()
        guard case .resume = cycle.wait(superseding: first, late.continuation, token: 9, isCancelled: false) else {
            Issue.record("the reset came after the superseded fetch")
            return
        }
        late.continuation.resume()
    }

    @Test func aResetWithoutAFetchResumesNothing() {
        var cycle = Self.live()
        let generation = cycle.generation
        #expect(cycle.reset().isEmpty)
        #expect(!cycle.isCurrent(generation), "an optimistic update's rollback no longer applies")
        #expect(cycle.receive([.deleted(1)]) == .ignore)
    }

    // MARK: wait and cancelWaiter

    @Test func aCallerWaitsOnlyWhileAFetchIsInFlight() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        let second = cycle.start().generation
        _ = cycle.resultArrived(generation: second, from: .request, refreshing: false, invalidationWaiting: false)
        let waiter = try await Waiter.make()
        guard case .resume = cycle.wait(superseding: first, waiter.continuation, token: 0, isCancelled: false) else {
            Issue.record("the newest fetch showed its results")
            return
        }
        waiter.continuation.resume()
    }

    @Test func aCancelledCallerFailsInsteadOfWaiting() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        _ = cycle.start()
        let waiter = try await Waiter.make()
        guard case .fail(let error) = cycle.wait(superseding: first, waiter.continuation, token: 0, isCancelled: true)
        else {
            Issue.record("a cancelled caller does not wait")
            return
        }
        #expect(error is CancellationError)
        #expect(cycle.reset().isEmpty, "not kept")
        waiter.continuation.resume(throwing: error)
    }

    @Test func aCallerCancelledWhileWaitingIsHandedBack() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        _ = cycle.start()
        let waiter = try await Waiter.make()
        let token = cycle.makeWaiterToken()
        _ = cycle.wait(superseding: first, waiter.continuation, token: token, isCancelled: false)
        let handedBack = cycle.cancelWaiter(token)
        let cancelled = try #require(handedBack)
        #expect(cycle.cancelWaiter(token) == nil, "once")
        #expect(cycle.reset().isEmpty, "no longer waiting")
        cancelled.resume(throwing: CancellationError())
        #expect(await waiter.outcome.value.hasPrefix("threw CancellationError"))
        var idle = Cycle()
        #expect(idle.cancelWaiter(0) == nil, "nothing waits without a fetch")
    }

    @Test func waiterTokensAreDistinctAcrossFetches() {
        var cycle = Cycle()
        let first = cycle.makeWaiterToken()
        _ = cycle.start()
        _ = cycle.reset()
        #expect(cycle.makeWaiterToken() == first + 1, "a token made before a fetch ends stays unique")
    }

    /// Every continuation a transition takes out of the cycle comes back to the caller, which resumes (and
    /// releases) it after the controller's lock: none is dropped, or resumed, inside (a checked continuation
    /// resumed twice stops the program).
    @Test func everyWaiterIsHandedBackAndResumedOutside() async throws {
        var cycle = Self.live()
        let first = cycle.start().generation
        let waiters = [try await Waiter.make(), try await Waiter.make(), try await Waiter.make()]
        _ = cycle.start()
        var tokens: [UInt64] = []
        for waiter in waiters {
            tokens.append(cycle.makeWaiterToken())
            _ = cycle.wait(superseding: first, waiter.continuation, token: tokens.last!, isCancelled: false)
        }
        _ = cycle.start()  // a further fetch supersedes the newest: they go on waiting
        let resuming = cycle.reset()
        #expect(resuming.count == 3)
        #expect(tokens.allSatisfy { cycle.cancelWaiter($0) == nil }, "the cycle keeps none")
        Self.resume(resuming)
        for waiter in waiters { #expect(await waiter.outcome.value == "returned") }
    }
}

extension _FetchCycle.ResultAction {
    var isDrop: Bool {
        if case .drop = self { true } else { false }
    }
}
