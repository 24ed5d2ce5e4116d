import Foundation
import LiveResults
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A temporary folder with a file store, a source of items that counts its requests and can hold them
/// in a gate, and a clock the test moves: the setting of every persisted-results test. Each controller
/// it makes is a new launch over the same folder.
final class CacheScenario: Sendable {
    let directory: URL
    let store: FileResultsStore
    let source: FakeStore
    /// Every store operation and every diagnostic, in the order they happened.
    let journal = Locked<[String]>([])
    private let clock = Locked(Date(timeIntervalSinceReferenceDate: 800_000_000))
    private let gate = Locked<EventHarness.Gate?>(nil)

    init(_ items: [Item]) {
        directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("LiveResultsCache-\(UUID().uuidString)", isDirectory: true)
        store = FileResultsStore(directory: directory)
        source = FakeStore(items)
    }

    deinit {
        _ = chmod(directory.path, 0o755)
        try? FileManager.default.removeItem(at: directory)
    }

    /// The injected clock's time.
    var now: Date { clock.withLock { $0 } }

    func advance(by seconds: TimeInterval) { clock.withLock { $0 += seconds } }

    /// Holds every request from now on until the returned gate opens.
    func holdRequests() -> EventHarness.Gate {
        let held = EventHarness.Gate()
        gate.withLock { $0 = held }
        return held
    }

    /// Whether the permissions of files are enforced: not for root.
    static var permissionsAreEnforced: Bool { getuid() != 0 }

    func policy(
        _ usage: ResultsCachePolicy.Usage, expiry: ResultsCachePolicy.Expiry = .never, key: String = "items",
        store: (any ResultsStore)? = nil
    ) -> ResultsCachePolicy {
        ResultsCachePolicy(
            key: key, store: JournalStore(store ?? self.store, journal: journal), expiry: expiry, usage: usage,
            now: { [clock] in clock.withLock { $0 } })
    }

    /// A plain definition over the source with this cache policy.
    func definition(_ policy: ResultsCachePolicy) -> FetchDefinition<Item> {
        FetchDefinition(
            request: { [source, gate] in
                await gate.withLock { $0 }?.wait()
                return try source.fetch()
            },
            cache: policy)
    }

    /// A new launch: a controller over the source with a cache, sectioned, sorted by score.
    func controller(
        _ usage: ResultsCachePolicy.Usage, expiry: ResultsCachePolicy.Expiry = .never,
        store: (any ResultsStore)? = nil, log: EventHarness.DiagnosticLog? = nil
    ) -> FetchedResultsController<Item> {
        controller(definition(policy(usage, expiry: expiry, store: store)), log: log)
    }

    func controller(
        _ definition: FetchDefinition<Item>, log: EventHarness.DiagnosticLog? = nil
    ) -> FetchedResultsController<Item> {
        FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\Item.score)], sectionNameKeyPath: \Item.section,
            diagnostics: { [journal] diagnostic in
                journal.withLock { $0.append("reported \(diagnostic)") }
                log?.handler(diagnostic)
            })
    }

    /// What a new launch with `.insteadOfFetching` shows from the cache, with a source that fails.
    func cachedModel() async throws -> (SnapshotModel<Item>, ResultsOrigin)? {
        let source = FakeStore()
        source.fails = true
        let reader = FetchedResultsController(
            definition: FetchDefinition(request: { try source.fetch() }, cache: policy(.insteadOfFetching)),
            sortDescriptors: [SortDescriptor(\Item.score)], sectionNameKeyPath: \Item.section)
        guard (try? await reader.performFetch()) != nil else { return nil }
        return (SnapshotModel(reader.snapshot), reader.resultsOrigin)
    }
}

/// A store that writes what happens to it in a journal, before passing it on.
struct JournalStore: ResultsStore {
    let base: any ResultsStore
    let journal: Locked<[String]>

    init(_ base: any ResultsStore, journal: Locked<[String]>) {
        self.base = base
        self.journal = journal
    }

    func results(forKey key: String) async throws -> CachedResults? {
        do {
            let results = try await base.results(forKey: key)
            journal.withLock { $0.append(results == nil ? "load: nothing" : "load") }
            return results
        } catch {
            journal.withLock { $0.append("load failed") }
            throw error
        }
    }

    func save(_ results: CachedResults, forKey key: String) async throws {
        do {
            try await base.save(results, forKey: key)
            journal.withLock { $0.append("save") }
        } catch {
            journal.withLock { $0.append("save failed") }
            throw error
        }
    }

    func removeResults(forKey key: String) async throws {
        try await base.removeResults(forKey: key)
    }
}

/// A store whose saves throw, and which has nothing saved.
struct FailingStore: ResultsStore {
    struct Failure: Error, Equatable {}

    func results(forKey key: String) async throws -> CachedResults? { nil }
    func save(_ results: CachedResults, forKey key: String) async throws { throw Failure() }
    func removeResults(forKey key: String) async throws {}
}
