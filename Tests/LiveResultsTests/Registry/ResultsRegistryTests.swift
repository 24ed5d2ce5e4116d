import Foundation
import LiveResults
import Testing

@Suite(.tags(.concurrent)) struct ResultsRegistryTests {
    /// Counts the calls of a `make` closure.
    final class MakeCounter: Sendable {
        private let count = Locked(0)
        var calls: Int { count.withLock { $0 } }

        func make(_ store: FakeStore) -> FetchedResultsController<Item> {
            count.withLock { $0 += 1 }
            return .make(store)
        }
    }

    /// A weak reference to a controller, to follow its lifetime.
    struct WeakController: Sendable {
        weak var controller: FetchedResultsController<Item>?
    }

    // MARK: Sharing

    @Test func sameKeyGivesTheSameControllerAndMakesItOnce() {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore()
        let userID = "42"
        let first = registry.controller(for: ["posts", userID]) { counter.make(store) }
        let second = registry.controller(for: ["posts", "42"]) { counter.make(store) }
        #expect(first === second)
        #expect(counter.calls == 1)
        #expect(registry.liveKeys == [["posts", "42"]])
    }

    @Test func differentKeysGiveDifferentControllers() {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore()
        let posts = registry.controller(for: ["posts"]) { counter.make(store) }
        let userPosts = registry.controller(for: ["posts", "1"]) { counter.make(store) }
        let other = registry.controller(for: ["users", "1"]) { counter.make(store) }
        #expect(posts !== userPosts)
        #expect(userPosts !== other)
        #expect(posts !== other)
        #expect(counter.calls == 3)
        #expect(registry.liveKeys == [["posts"], ["posts", "1"], ["users", "1"]], "sorted, a prefix first")
    }

    @Test func manyTasksAskingAtOnceShareOneController() async {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore([Item(1)])
        // The tasks hold their controllers until all are done: a released controller may be made again.
        let controllers = await withTaskGroup(of: FetchedResultsController<Item>.self) { group in
            for _ in 0..<100 {
                group.addTask { registry.controller(for: ["posts", "1"]) { counter.make(store) } }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        #expect(controllers.count == 100)
        #expect(Set(controllers.map(ObjectIdentifier.init)).count == 1)
        #expect(counter.calls == 1)
    }

    @Test("100 tasks asking for one key at once, fetched: one controller, one request")
    func manyTasksShareOneFirstFetch() async throws {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore([Item(1), Item(2)])
        let controllers = try await withThrowingTaskGroup(of: FetchedResultsController<Item>.self) { group in
            for _ in 0..<100 {
                group.addTask { try await registry.fetchedController(for: ["posts"]) { counter.make(store) } }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(Set(controllers.map(ObjectIdentifier.init)).count == 1)
        #expect(counter.calls == 1)
        #expect(store.calls == 1, "one request")
        #expect(controllers.allSatisfy { $0.state.isLoaded && $0.fetchedObjects.count == 2 })
        // Fetched already: no request.
        _ = try await registry.fetchedController(for: ["posts"]) { counter.make(store) }
        #expect(store.calls == 1)
        // After a reset, the next caller fetches again.
        controllers[0].reset()
        _ = try await registry.fetchedController(for: ["posts"]) { counter.make(store) }
        #expect(store.calls == 2 && controllers[0].state.isLoaded)
    }

    @Test("a failed shared first fetch throws to every waiting caller; the next call fetches again")
    func aFailedFirstFetchIsTriedAgain() async throws {
        let registry = ResultsRegistry()
        let store = FakeStore([Item(1)])
        store.fails = true
        let first = registry.controller(for: ["posts"]) { FetchedResultsController<Item>.make(store) }
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<20 {
                group.addTask {
                    do {
                        _ = try await registry.fetchedController(for: ["posts"]) {
                            FetchedResultsController<Item>.make(store)
                        }
                        return false
                    } catch { return error is FakeStore.Failure }
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(failures == 20)
        #expect(store.calls >= 1 && store.calls <= 20)
        let calls = store.calls
        store.fails = false
        let fetched = try await registry.fetchedController(for: ["posts"]) {
            FetchedResultsController<Item>.make(store)
        }
        #expect(fetched === first && fetched.state.isLoaded)
        #expect(store.calls == calls + 1)
    }

    @Test func manyThreadsAskingAtOnceShareOneController() async {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore()
        let controllers = Locked<[FetchedResultsController<Item>]>([])
        await EventHarness.onThreads(100) { _ in
            let controller = registry.controller(for: ["posts"]) { counter.make(store) }
            controllers.withLock { $0.append(controller) }
        }
        let all = controllers.withLock { $0 }
        #expect(all.count == 100)
        #expect(Set(all.map(ObjectIdentifier.init)).count == 1)
        #expect(counter.calls == 1)
    }

    @Test func aKeyForAnotherEntityTypeStopsTheProgram() async {
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            let registry = ResultsRegistry()
            let items = registry.controller(for: ["shared"]) { FetchedResultsController<Item>.make(FakeStore()) }
            _ = registry.controller(for: ["shared"]) {
                FetchedResultsController(
                    definition: FetchDefinition<Post>(request: { [] }), sortDescriptors: [SortDescriptor(\Post.score)])
            }
            withExtendedLifetime(items) {}
        }
        let message = String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
        #expect(message.contains(#"the key ["shared"] holds a FetchedResultsController<"#), "\(message)")
    }

    // MARK: Lifetime

    @Test func aControllerGoesWithItsLastConsumer() {
        let registry = ResultsRegistry()
        let counter = MakeCounter()
        let store = FakeStore()
        var watch = WeakController()
        do {
            let first = registry.controller(for: ["posts"]) { counter.make(store) }
            watch.controller = first
            let second = registry.controller(for: ["posts"]) { counter.make(store) }
            #expect(second === first)
            #expect(registry.liveKeys == [["posts"]])
        }
        #expect(watch.controller == nil, "the registry holds its controllers weakly")
        #expect(registry.liveKeys == [])
        let again = registry.controller(for: ["posts"]) { counter.make(store) }
        #expect(counter.calls == 2, "a new controller once the last consumer let go")
        #expect(registry.liveKeys == [["posts"]])
        withExtendedLifetime(again) {}
    }

    @Test func keepAliveHoldsAControllerForItsDurationThenReleasesIt() async {
        let keepAlive = Duration.milliseconds(300)
        let registry = ResultsRegistry(keepAlive: keepAlive)
        let counter = MakeCounter()
        let store = FakeStore()
        var watch = WeakController()
        let start = ContinuousClock.now
        do {
            watch.controller = registry.controller(for: ["posts"]) { counter.make(store) }
        }
        // Checked before the deadline only: on a slow machine the deadline may already have passed.
        let isAlive = watch.controller != nil
        let handedOutAgain = ContinuousClock.now
        do {
            let again = registry.controller(for: ["posts"]) { counter.make(store) }
            if start.duration(to: .now) < keepAlive {
                #expect(isAlive, "kept alive with no consumer")
                #expect(counter.calls == 1, "handed out again within the keep-alive")
                #expect(again === watch.controller)
            }
        }

        let released = await EventHarness.eventually(timeout: .seconds(45)) { watch.controller == nil }
        #expect(released, "released after the keep-alive")
        #expect(handedOutAgain.duration(to: .now) >= keepAlive, "not before the deadline of its last hand-out")
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { registry.liveKeys.isEmpty })
    }

    @Test func keepAliveDoesNotOutliveAConsumerThatStillHoldsTheController() async {
        let registry = ResultsRegistry(keepAlive: .milliseconds(50))
        let store = FakeStore()
        let held = registry.controller(for: ["posts"]) { .make(store) }
        // Real time is what is tested: the registry's keep-alive (50 ms on the continuous clock) has passed.
        try? await Task.sleep(for: .milliseconds(100))
        #expect(registry.controller(for: ["posts"]) { .make(store) } === held, "a consumer still holds it")
        #expect(registry.liveKeys == [["posts"]])
    }

    // MARK: Invalidation

    @Test func invalidateRefetchesExactlyTheLiveFetchedControllersUnderThePrefix() async throws {
        let registry = ResultsRegistry()
        let stores = (0..<5).map { FakeStore([Item($0)]) }
        let post1 = registry.controller(for: ["posts", "1"]) { .make(stores[0]) }
        let post2 = registry.controller(for: ["posts", "2"]) { .make(stores[1]) }
        let user1 = registry.controller(for: ["users", "1"]) { .make(stores[2]) }
        let neverFetched = registry.controller(for: ["posts", "3"]) { .make(stores[3]) }
        for controller in [post1, post2, user1] { try await controller.performFetch() }
        do {
            let dropped = registry.controller(for: ["posts", "4"]) { .make(stores[4]) }
            try await dropped.performFetch()
        }
        stores[0].items = [Item(1), Item(10)]

        await registry.invalidate(prefix: ["posts"])

        #expect(stores.map(\.calls) == [2, 2, 1, 0, 1])
        #expect(post1.fetchedObjects.map(\.id) == [1, 10], "done when invalidate returns")
        #expect(neverFetched.state.isIdle)
        await registry.invalidate(prefix: ["posts", "2"])
        #expect(stores.map(\.calls) == [2, 3, 1, 0, 1])
        await registry.invalidate(prefix: [])
        #expect(stores.map(\.calls) == [3, 4, 2, 0, 1])
    }

    @Test func invalidateWaitsForTheRefetches() async throws {
        let registry = ResultsRegistry()
        let gate = EventHarness.Gate()
        let store = FakeStore([Item(1)])
        let controller = registry.controller(for: ["posts"]) {
            FetchedResultsController(
                definition: FetchDefinition(request: {
                    await gate.wait()
                    return try store.fetch()
                }), sortDescriptors: [SortDescriptor(\Item.score)])
        }
        gate.open()
        try await controller.performFetch()
        gate.close()
        store.items = [Item(1), Item(2)]

        let done = EventHarness.Flag()
        let invalidation = Task {
            await registry.invalidate(prefix: ["posts"])
            done.set()
        }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { gate.waiters == 1 })
        #expect(!done.isSet, "still waiting for the refetch")
        gate.open()
        await invalidation.value
        #expect(store.calls == 2)
        #expect(controller.fetchedObjects.map(\.id) == [1, 2])
    }

    @Test func invalidateIgnoresFailuresThatTheControllerReports() async throws {
        let registry = ResultsRegistry()
        let log = EventHarness.DiagnosticLog()
        let store = FakeStore([Item(1)])
        let controller = registry.controller(for: ["posts"]) { .make(store, diagnostics: log.handler) }
        try await controller.performFetch()
        store.fails = true
        await registry.invalidate(prefix: ["posts"])
        #expect(store.calls == 2)
        #expect(controller.state.error is FakeStore.Failure)
        #expect(controller.fetchedObjects.map(\.id) == [1], "what was shown stays")
    }

    @Test func invalidatingAPrefixNobodyHoldsDoesNothing() async throws {
        let registry = ResultsRegistry()
        let store = FakeStore([Item(1)])
        await registry.invalidate(prefix: ["posts"])
        let users = registry.controller(for: ["users"]) { .make(store) }
        try await users.performFetch()
        await registry.invalidate(prefix: ["posts"])
        await registry.invalidate(prefix: ["users", "1"])
        #expect(store.calls == 1)
        #expect(registry.liveKeys == [["users"]])
    }
}
