import Foundation
import LiveResults
import NIOConcurrencyHelpers

/// The live embeddings of a live-queries route: one ``LiveEmbedding`` per query and `select=`, shared by the
/// streams that hold it. Their related tables are followed once, and each related event goes to the embeddings
/// that read the row it changes.
///
/// Each embedding counts as one live query toward the route's limit, beside the registry's queries (its
/// `maximumQueries`): a new one, when every live query of either kind is held, is refused as the registry
/// refuses one. When its last stream ends it stays for the registry's grace period, so that a client that
/// reconnects meanwhile finds its windows and their versions, and resumes with one catch-up.
package final class _LiveEmbeddings<Source: QueryableSource>: Sendable where Source.Entity: Codable {
    /// A stream's hold on an embedding: the embedding stays while a hold exists, and for the grace period after
    /// the last one is released.
    package final class Hold: Sendable {
        /// The embedding held.
        package let embedding: LiveEmbedding<Source>
        private let release: @Sendable () -> Void

        fileprivate init(embedding: LiveEmbedding<Source>, release: @escaping @Sendable () -> Void) {
            self.embedding = embedding
            self.release = release
        }

        deinit { release() }
    }

    private struct Entry: Sendable {
        let serial: Int
        let embedding: LiveEmbedding<Source>
        let fetched: Task<Void, any Error>
        var holders = 0
        /// Counts the releases to zero holders: a grace period that ended finds whether it is still the last.
        var idleGeneration = 0
        var idleSince: ContinuousClock.Instant?
    }

    private struct State: Sendable {
        var entries: [String: Entry] = [:]
        var nextSerial = 0
    }

    /// The route's queries, whose limit and grace period the embeddings share.
    private let registry: LiveQueryRegistry<Source>
    private let route: _LiveQueryRoute
    /// The route's related tables, followed once for all its embeddings.
    private let router: _RelatedRouter
    private let encoder: JSONEncoder
    private let state = NIOLockedValueBox(State())

    /// The embeddings of `route`'s queries, read from `registry`'s source, within its limit and grace period.
    ///
    /// - Complexity: O(1).
    package init(registry: LiveQueryRegistry<Source>, route: _LiveQueryRoute, encoder: JSONEncoder = JSONEncoder()) {
        self.registry = registry
        self.route = route
        self.encoder = encoder
        router = _RelatedRouter(relations: route.relations)
    }

    /// The embeddings live now, held or in their grace period.
    ///
    /// - Complexity: O(1).
    package var count: Int { state.withLockedValue { $0.entries.count } }

    /// The versions the embeddings' controllers and windows hold for resumes (see `HeldVersions`).
    ///
    /// - Complexity: O(*e* + *W* + *v*) for *e* embeddings, *W* windows and *v* versions held.
    package var heldVersions: HeldVersions {
        let controllers = state.withLockedValue { $0.entries.values.map(\.embedding.controller) }
        return controllers.reduce(HeldVersions()) { $0 + $1.heldVersions }
    }

    /// The embedding of `select` in the rows of `query`, fetched and held: the one streams of the same query
    /// and `select=` share, or a new one.
    ///
    /// - Throws: PostgREST's error for a relationship; `LiveQueryRegistryError.full(maximum:)` when the route
    ///   holds its most live queries, every one of them in use; the fetch's error.
    /// - Complexity: O(1) for a live embedding; otherwise O(*q*) for the route's *q* live queries, plus the
    ///   first fetch.
    package func embedding(of select: SelectList, in query: LiveQuery<Source.Entity>) async throws -> Hold {
        let key = query.key + "\u{1}" + select.identity
        let entry = try hold(key) { () throws(PostgRESTError) in
            try LiveEmbedding(
                query: query, select: select, table: route.table, source: registry.source,
                relations: route.relations, router: router, encoder: encoder)
        }
        let hold = Hold(embedding: entry.embedding) { [weak self] in self?.release(key, serial: entry.serial) }
        do {
            try await entry.fetched.value
        } catch {
            discard(key, serial: entry.serial)
            throw error
        }
        return hold
    }

    /// The registry's results of `query`, the route's embeddings counted toward its limit: when a new query
    /// takes the route past it, idle queries or embeddings make room, else the query is refused. With `current`,
    /// they show every change committed before the call (`LiveQueryRegistry.currentResults(for:)`).
    ///
    /// - Throws: `LiveQueryRegistryError.full(maximum:)` when the route holds its most live queries, every one of
    ///   them in use; the fetch's error; with `current`, `LiveQuerySynchronizationError`.
    /// - Complexity: As `LiveQueryRegistry.results(for:)`, plus O(*q*) for *q* live queries when the route is full;
    ///   with `current`, the source's `synchronize()` for a query already live.
    package func results(
        for query: LiveQuery<Source.Entity>, current: Bool = false
    ) async throws -> LiveQueryResults<Source.Entity> {
        let results = try await current ? registry.currentResults(for: query) : registry.results(for: query)
        // The registry counts only its own queries: a new one that the embeddings make one too many is let go
        // (idle, so the next query may release it) unless idle ones make room.
        var evicted: [Entry] = []
        guard state.withLockedValue({ makeRoom(in: &$0, leaving: registry.maximumQueries, evicted: &evicted) }) else {
            throw LiveQueryRegistryError.full(maximum: registry.maximumQueries)
        }
        return results
    }

    // MARK: Entries

    /// The entry of `key`, made by `make` if needed (room made first), with one more holder.
    private func hold(_ key: String, make: () throws(PostgRESTError) -> LiveEmbedding<Source>) throws -> Entry {
        // Let go when this returns, outside the lock: an embedding stops following its tables as it deinitializes.
        var evicted: [Entry] = []
        return try state.withLockedValue { state in
            if var entry = state.entries[key] {
                entry.holders += 1
                entry.idleSince = nil
                state.entries[key] = entry
                return entry
            }
            guard makeRoom(in: &state, leaving: registry.maximumQueries - 1, evicted: &evicted) else {
                throw LiveQueryRegistryError.full(maximum: registry.maximumQueries)
            }
            let embedding = try make()
            let entry = Entry(
                serial: state.nextSerial, embedding: embedding, fetched: Task { try await embedding.fetch() },
                holders: 1)
            state.nextSerial += 1
            state.entries[key] = entry
            return entry
        }
    }

    /// Releases idle live queries, the registry's first, then the embeddings' (into `evicted`), until the route
    /// holds at most `most`; whether it does.
    ///
    /// Called under the embeddings' lock, which the registry's comes after: the registry never calls back into
    /// the embeddings, and a query it releases is idle, so no stream of it ends meanwhile.
    private func makeRoom(in state: inout State, leaving most: Int, evicted: inout [Entry]) -> Bool {
        while state.entries.count + registry.liveQueryCount > most {
            if registry.releaseIdleLongest() { continue }
            guard
                let idle = state.entries.filter({ $0.value.holders == 0 })
                    .min(by: { $0.value.idleSince! < $1.value.idleSince! })
            else { return false }
            evicted.append(state.entries.removeValue(forKey: idle.key)!)
        }
        return true
    }

    /// One holder of entry `serial` of `key` left; the last starts the grace period.
    private func release(_ key: String, serial: Int) {
        let generation = state.withLockedValue { state -> Int? in
            guard var entry = state.entries[key], entry.serial == serial else { return nil }
            entry.holders -= 1
            if entry.holders == 0 {
                entry.idleGeneration += 1
                entry.idleSince = .now
            }
            state.entries[key] = entry
            return entry.holders == 0 ? entry.idleGeneration : nil
        }
        guard let generation else { return }
        let gracePeriod = registry.gracePeriod
        Task { [weak self] in
            try? await Task.sleep(for: gracePeriod)
            self?.expire(key, serial: serial, generation: generation)
        }
    }

    /// Releases entry `serial` of `key` if nobody held it since its grace period began.
    private func expire(_ key: String, serial: Int, generation: Int) {
        // The entry removed is let go after the lock (see `hold(_:make:)`).
        _ = state.withLockedValue { state -> Entry? in
            guard let entry = state.entries[key], entry.serial == serial, entry.holders == 0,
                entry.idleGeneration == generation
            else { return nil }
            return state.entries.removeValue(forKey: key)
        }
    }

    /// Removes entry `serial` of `key`, whose fetch failed: the next request makes a new one.
    private func discard(_ key: String, serial: Int) {
        _ = state.withLockedValue { state -> Entry? in
            guard state.entries[key]?.serial == serial else { return nil }
            return state.entries.removeValue(forKey: key)
        }
    }
}
