import Foundation
import LiveResults
import Testing

/// Persisted results (the *LifeOfAQuery* article): each usage against a real file store in a temporary folder,
/// across controller instances (a later launch reading what an earlier one saved); expiry by an
/// injected clock; every kind of cache that cannot be used, reported and replaced.
@Suite("Persisted results", .timeLimit(.minutes(5)))
struct ResultsCacheTests {
    typealias Log = EventHarness.DiagnosticLog

    static let items = ScenarioFixture.sample
    /// The source after the first launch: #1 rescored, #2 deleted, #8 inserted.
    static let changed =
        [Item(1, section: "a", score: 40)] + items.filter { ![1, 2].contains($0.id) } + [
            Item(8, section: "b", score: 5)
        ]
    static let empty = SnapshotModel<Item>(sections: [])

    /// Launches once with a working source, so that the folder holds its saved results.
    static func savedScenario(_ items: [Item] = items) async throws -> (CacheScenario, SnapshotModel<Item>) {
        let scenario = CacheScenario(items)
        let first = scenario.controller(.thenFetch)
        try await first.performFetch()
        #expect(first.resultsOrigin == .request)
        return (scenario, SnapshotModel(first.snapshot))
    }

    @Test("expiry: never, after a lifetime (fresh up to it, expired from it), zero or negative lifetimes")
    func expiry() {
        let saved = Date(timeIntervalSinceReferenceDate: 1000)
        let clock = Locked(saved)
        func policy(_ expiry: ResultsCachePolicy.Expiry) -> ResultsCachePolicy {
            ResultsCachePolicy(
                key: "k", store: InMemoryResultsStore(), expiry: expiry, usage: .thenFetch,
                now: { clock.withLock { $0 } })
        }
        clock.withLock { $0 = saved + 1_000_000 }
        #expect(policy(.never).isFresh(savedAt: saved))
        clock.withLock { $0 = saved + 9.999 }
        #expect(policy(.after(.seconds(10))).isFresh(savedAt: saved))
        clock.withLock { $0 = saved + 10 }
        #expect(!policy(.after(.seconds(10))).isFresh(savedAt: saved))
        #expect(policy(.after(.milliseconds(10_001))).isFresh(savedAt: saved))
        clock.withLock { $0 = saved }
        #expect(!policy(.after(.zero)).isFresh(savedAt: saved), "a zero lifetime expires at once")
        #expect(!policy(.after(.seconds(-5))).isFresh(savedAt: saved))
        clock.withLock { $0 = saved - 60 }
        #expect(policy(.after(.seconds(10))).isFresh(savedAt: saved), "saved in the clock's future: just saved")
        let defaults = ResultsCachePolicy(key: "k", store: InMemoryResultsStore())
        #expect(defaults.expiry == .never && defaults.usage == .thenFetch)
        #expect(abs(defaults.now().timeIntervalSinceNow) < 60)
    }

    @Test("insteadOfFetching: a fresh cache is shown without a request; an expired one counts as absent")
    func insteadOfFetching() async throws {
        let (scenario, saved) = try await Self.savedScenario()
        let savedAt = scenario.now
        scenario.source.items = Self.changed
        scenario.advance(by: 59)
        let second = scenario.controller(.insteadOfFetching, expiry: .after(.seconds(60)))
        let changes = try await second.performFetch()
        #expect(scenario.source.calls == 1, "no request")
        #expect(second.resultsOrigin == .cache(savedAt: savedAt))
        #expect(second.state.isLoaded)
        #expect(SnapshotModel(second.snapshot) == saved)
        expectContract(changes, from: Self.empty, to: saved)
        // Live events apply to the cached results.
        second.apply(.inserted(Item(9, section: "a", score: 1)))
        #expect(second.indexPath(forID: 9) == ip(0, 0))
        // A refetch of a controller that shows results makes its request.
        try await second.performFetch()
        #expect(second.resultsOrigin == .request)
        #expect(scenario.source.calls == 2)

        scenario.advance(by: 61)
        let third = scenario.controller(.insteadOfFetching, expiry: .after(.seconds(60)))
        try await third.performFetch()
        #expect(third.resultsOrigin == .request, "the refetch saved at 59 s; now 120 s: expired")
        #expect(scenario.source.calls == 3)
        #expect(third.fetchedObjects.map(\.id).sorted() == Self.changed.map(\.id).sorted())
    }

    @Test("ifFetchFails: fetch; only when the request fails, the cache is shown and the fetch succeeds")
    func ifFetchFails() async throws {
        let (scenario, saved) = try await Self.savedScenario()
        let savedAt = scenario.now
        scenario.source.fails = true
        let log = Log()
        let second = scenario.controller(.ifFetchFails, log: log)
        let recorder = EventHarness.ChainRecorder<Item>(initial: Self.empty)
        second.delegate = recorder
        let changes = try await second.performFetch()
        #expect(second.resultsOrigin == .cache(savedAt: savedAt))
        #expect(second.state.isLoaded)
        #expect(SnapshotModel(second.snapshot) == saved)
        expectContract(changes, from: Self.empty, to: saved)
        #expect(log.fetchFailures.count == 1 && second.statistics.failedFetches == 1, "the failure is reported")
        recorder.expectChain()

        scenario.source.fails = false
        scenario.source.items = Self.changed
        let third = scenario.controller(.ifFetchFails)
        let recorded = EventHarness.ChainRecorder<Item>(initial: Self.empty)
        third.delegate = recorded
        try await third.performFetch()
        #expect(third.resultsOrigin == .request)
        #expect(recorded.deliveryCount == 1, "the cache was not shown")
        #expect(third.fetchedObjects.map(\.id).sorted() == Self.changed.map(\.id).sorted())

        // Without usable saved results, the failure is the fetch's.
        scenario.source.fails = true
        let fourth = scenario.controller(.ifFetchFails, expiry: .after(.zero))
        await #expect(throws: FakeStore.Failure.self) { try await fourth.performFetch() }
        #expect(fourth.resultsOrigin == .none)
        #expect(fourth.state.error is FakeStore.Failure)
    }

    @Test(
        "thenFetch: the cache at once with state loading, then the request's difference as one change set",
        .tags(.concurrent))
    func thenFetch() async throws {
        let (scenario, saved) = try await Self.savedScenario()
        let savedAt = scenario.now
        scenario.source.items = Self.changed
        scenario.advance(by: 5)
        let gate = scenario.holdRequests()
        let second = scenario.controller(.thenFetch)
        let recorder = EventHarness.ChainRecorder<Item>(initial: Self.empty)
        second.delegate = recorder
        let fetch = Task { try await second.performFetch() }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { second.resultsOrigin != .none })
        #expect(second.resultsOrigin == .cache(savedAt: savedAt))
        #expect(second.state.isLoading, "loading over the cached results")
        #expect(SnapshotModel(second.snapshot) == saved)
        // An event during the refresh shows at once, and is replayed onto the request's result.
        second.apply(.inserted(Item(9, section: "a", score: 1)))
        gate.open()
        let changes = try await fetch.value
        #expect(second.resultsOrigin == .request)
        #expect(second.state.isLoaded)
        let final = SnapshotModel(second.snapshot)
        #expect(final.ids == [[9, 3, 1], [8, 4], [5, 6]])
        expectContract(changes, from: Self.empty, to: final)
        recorder.expectChain()
        #expect(recorder.deliveryCount == 3, "the cache, the event, the refresh")
        let refresh = recorder.changeSets[2]
        #expect(refresh.insertedItemIDs == [8] && refresh.deletedItemIDs == [2], "only the difference")
        // The refresh saved what is shown, the replayed event included.
        #expect(try await scenario.cachedModel()?.0 == final)
        #expect(try await scenario.cachedModel()?.1 == .cache(savedAt: savedAt + 5))
    }

    @Test("thenFetch: a failed refresh keeps the cached results, with state failed")
    func thenFetchFailing() async throws {
        let (scenario, saved) = try await Self.savedScenario()
        scenario.source.fails = true
        let second = scenario.controller(.thenFetch)
        await #expect(throws: FakeStore.Failure.self) { try await second.performFetch() }
        #expect(second.state.error is FakeStore.Failure)
        #expect(SnapshotModel(second.snapshot) == saved)
        #expect(second.resultsOrigin == .cache(savedAt: scenario.now))
        // Still live: events apply; a later refetch that succeeds replaces them.
        second.apply(.deleted(1))
        #expect(second.object(withID: 1) == nil)
        scenario.source.fails = false
        try await second.performFetch()
        #expect(second.resultsOrigin == .request)
        #expect(second.object(withID: 1) != nil)
    }

    @Test(
        "without saved results, every usage makes its request and saves",
        arguments: [
            ResultsCachePolicy.Usage.insteadOfFetching, .ifFetchFails, .thenFetch,
        ])
    func nothingSaved(usage: ResultsCachePolicy.Usage) async throws {
        let scenario = CacheScenario(Self.items)
        let log = Log()
        let controller = scenario.controller(usage, log: log)
        try await controller.performFetch()
        #expect(controller.resultsOrigin == .request)
        #expect(scenario.source.calls == 1)
        #expect(log.all.isEmpty, "nothing to report")
        #expect(try await scenario.cachedModel()?.0 == SnapshotModel(controller.snapshot))
    }

    @Test("a reset forgets the origin, and a reset during a refresh drops it", .tags(.concurrent))
    func reset() async throws {
        let (scenario, _) = try await Self.savedScenario()
        let gate = scenario.holdRequests()
        let second = scenario.controller(.thenFetch)
        let fetch = Task { try await second.performFetch() }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { second.resultsOrigin != .none })
        second.reset()
        #expect(second.resultsOrigin == .none)
        gate.open()
        #expect(try await fetch.value.isEmpty, "superseded")
        #expect(second.fetchedObjects.isEmpty && second.state.isIdle)
        // The next fetch starts from the cache again.
        gate.close()
        let again = Task { try await second.performFetch() }
        #expect(await EventHarness.eventually(timeout: .seconds(45)) { second.resultsOrigin != .none })
        gate.open()
        _ = try await again.value
        #expect(second.resultsOrigin == .request)
    }
}

/// Caches that cannot be used: reported, ignored, and replaced by the save after the request.
@Suite("Persisted results: bad input", .timeLimit(.minutes(5)))
struct ResultsCacheBadInputTests {
    typealias Log = EventHarness.DiagnosticLog

    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        case empty, truncated, notJSON, otherVersion, otherShape, unreadable
        var testDescription: String { rawValue }
    }

    /// Saves the sample, then damages the file as `damage` says.
    static func damage(_ damage: Damage, in scenario: CacheScenario) async throws {
        let url = scenario.store.fileURL(forKey: "items")
        let first = scenario.controller(.thenFetch)
        try await first.performFetch()
        var contents = try Data(contentsOf: url)
        switch damage {
        case .empty: contents = Data()
        case .truncated: contents = contents.prefix(contents.count / 2)
        case .notJSON:
            try await scenario.store.save(
                CachedResults(data: Data("not json".utf8), savedAt: scenario.now), forKey: "items")
            contents = try Data(contentsOf: url)
        case .otherVersion: contents[7] = 9
        case .otherShape:
            let other = try JSONEncoder().encode([["name": "x"]])
            try await scenario.store.save(CachedResults(data: other, savedAt: scenario.now), forKey: "items")
            contents = try Data(contentsOf: url)
        case .unreadable: break
        }
        try contents.write(to: url)
        if damage == .unreadable {
            // Permissions do not stop root; a directory in the file's place stops everyone, and is then
            // also in the way of the save, which is reported too.
            if CacheScenario.permissionsAreEnforced {
                #expect(chmod(url.path, 0o000) == 0)
            } else {
                try FileManager.default.removeItem(at: url)
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
            }
        }
        scenario.journal.withLock { $0 = [] }
    }

    @Test(
        "a damaged cache is reported before anything replaces it, then ignored, and the save replaces it",
        arguments: Damage.allCases, [ResultsCachePolicy.Usage.insteadOfFetching, .ifFetchFails, .thenFetch])
    func damaged(damage: Damage, usage: ResultsCachePolicy.Usage) async throws {
        let scenario = CacheScenario(ResultsCacheTests.items)
        try await Self.damage(damage, in: scenario)
        scenario.source.items = ResultsCacheTests.changed
        let log = Log()
        let controller = scenario.controller(usage, log: log)
        try await controller.performFetch()
        #expect(controller.resultsOrigin == .request)
        #expect(controller.state.isLoaded)
        #expect(scenario.source.calls == 2)
        #expect(log.cacheLoadFailures.count == 1 && controller.statistics.failedCacheLoads == 1)
        let journal = scenario.journal.withLock { $0 }
        let decodes = [.notJSON, .otherShape].contains(damage)
        #expect(journal.first == (decodes ? "load" : "load failed"), "\(journal)")
        let reported = try #require(journal.firstIndex { $0.hasPrefix("reported cacheLoadFailed") })
        let saved = journal.firstIndex { $0.hasPrefix("save") } ?? journal.count
        #expect(reported < saved, "reported before the save: \(journal)")
        let blocked = damage == .unreadable && !CacheScenario.permissionsAreEnforced
        if blocked {
            #expect(log.cacheSaveFailures.count == 1 && controller.statistics.failedCacheSaves == 1)
        } else {
            #expect(journal.last == "save")
            #expect(try await scenario.cachedModel()?.0 == SnapshotModel(controller.snapshot), "replaced")
        }
    }

    @Test("a store that throws on save: the fetch succeeds, the failure is reported and counted")
    func failingSave() async throws {
        let scenario = CacheScenario(ResultsCacheTests.items)
        let log = Log()
        let controller = scenario.controller(.thenFetch, store: FailingStore(), log: log)
        let changes = try await controller.performFetch()
        #expect(changes.insertedItems.count == ResultsCacheTests.items.count)
        #expect(controller.resultsOrigin == .request && controller.state.isLoaded)
        #expect(log.cacheSaveFailures.first is FailingStore.Failure)
        #expect(controller.statistics.failedCacheSaves == 1)
    }

    @Test("a cache folder that does not exist is created by the first save; one that cannot be is reported")
    func folders() async throws {
        let scenario = CacheScenario(ResultsCacheTests.items)
        let nested = FileResultsStore(directory: scenario.directory.appendingPathComponent("a/b/c"))
        let controller = scenario.controller(.thenFetch, store: nested)
        try await controller.performFetch()
        #expect(FileManager.default.fileExists(atPath: nested.fileURL(forKey: "items").path))

        // A regular file where the folder should be: no load, no save, both harmless.
        try FileManager.default.createDirectory(at: scenario.directory, withIntermediateDirectories: true)
        let file = scenario.directory.appendingPathComponent("a-file")
        try Data([1]).write(to: file)
        let log = Log()
        let blocked = scenario.controller(.thenFetch, store: FileResultsStore(directory: file), log: log)
        try await blocked.performFetch()
        #expect(blocked.resultsOrigin == .request)
        #expect(log.cacheSaveFailures.count == 1)
    }

    @Test("two controllers saving one key at once leave one whole save", .tags(.concurrent))
    func concurrentSaves() async throws {
        let scenario = CacheScenario(ResultsCacheTests.items)
        let otherItems = (10..<60).map { Item($0, section: "z", score: $0) }
        let other = FakeStore(otherItems)
        let policy = scenario.policy(.thenFetch)
        let controllers = [
            scenario.controller(.thenFetch),
            scenario.controller(FetchDefinition(request: { try other.fetch() }, cache: policy)),
        ]
        try await withThrowingTaskGroup(of: Void.self) { group in
            for controller in controllers {
                group.addTask {
                    for _ in 0..<20 { try await controller.performFetch() }
                }
            }
            try await group.waitForAll()
        }
        let cached = try #require(try await scenario.cachedModel()?.0)
        let models = controllers.map { SnapshotModel($0.snapshot) }
        #expect(models.contains(cached), "one of the two, whole")
    }
}
