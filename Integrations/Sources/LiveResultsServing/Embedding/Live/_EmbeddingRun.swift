import Foundation
import LiveResults
import NIOConcurrencyHelpers

/// The work of a ``LiveEmbedding``, done in order by one task: fetches, and batches of events turned into the
/// embedded rows' events.
final class _EmbeddingRun<Source: QueryableSource>: Sendable where Source.Entity: Codable {
    typealias Parent = Source.Entity

    /// What the task does next.
    enum Work: Sendable {
        case fetch(CheckedContinuation<Void, any Error>)
        case parents([EntityEvent<Parent>])
        case related([_RelatedEvent], table: String)
    }

    let controller: FetchedResultsController<EmbeddedRow<Parent>>
    private let query: LiveQuery<Parent>
    private let select: SelectList
    private let table: String
    private let source: Source
    private let embedder: _Embedder
    private let relatedTables: Set<String>
    private let index: _EmbeddingIndexBox<Parent>
    private let router: _RelatedRouter
    /// Encodes the parents (the embedded rows are their sources' own JSON, as on `GET`).
    private let encoder: JSONEncoder
    /// The run's id in `router`.
    private let follower: Int

    init(
        query: LiveQuery<Parent>, select: SelectList, table: String, source: Source, relations: LiveRelations,
        relatedTables: Set<String>, router: _RelatedRouter, follower: Int, encoder: JSONEncoder
    ) {
        let embedder = _Embedder(relations: relations)
        let index = _EmbeddingIndexBox<Parent>()
        let sectionName = query.sectionNameKeyPath
        self.query = query
        self.select = select
        self.table = table
        self.source = source
        self.embedder = embedder
        self.relatedTables = relatedTables
        self.index = index
        self.router = router
        self.follower = follower
        self.encoder = encoder
        let definition = FetchDefinition<EmbeddedRow<Parent>>(
            request: {
                router.beginReading(follower)
                var keys = (added: Set<_ReadKey>(), removed: Set<_ReadKey>())
                defer { router.endReading(follower, keys: keys) }
                let parents = try await source.fetchDefinition(for: query).request().filter(query.isIncluded)
                let embeddings = try await Self.embeddings(
                    of: parents, select: select, table: table, by: embedder, encoder: encoder)
                return index.state.withLockedValue { index in
                    index.removeAll()
                    let rows = zip(parents, embeddings).map { parent, embedding in
                        index.record(parent, reads: embedding.reads)
                        return Self.row(parent, embedding, sectionName: sectionName)
                    }
                    keys = index.takeKeyChanges()
                    return rows
                }
            },
            isIncluded: { row in row.object != nil && query.isIncluded(row.parent) })
        controller = FetchedResultsController(
            definition: definition, sortComparator: _ParentOrder(descriptors: query.sortDescriptors),
            sectionNameKeyPath: sectionName == nil ? nil : \EmbeddedRow<Parent>.sectionName)
    }

    /// Does `work`.
    func perform(_ work: Work) async {
        switch work {
        case .fetch(let done):
            do {
                _ = try await controller.performFetch()
                done.resume()
            } catch {
                done.resume(throwing: error)
            }
        case .parents(let events):
            await apply(index.state.withLockedValue { changes(of: events, in: &$0) })
        case .related(let events, let table):
            await apply(
                index.state.withLockedValue { index in
                    var changes = _Changes()
                    changes.add(parentsChangedBy: events, in: table, index: index)
                    return changes
                })
        }
    }

    /// What a batch of the parents' events changes: the parents it inserts, updates or removes, and, when the
    /// query's table is embedded too, the parents whose embeddings read the rows it changed.
    private func changes(of events: [EntityEvent<Parent>], in index: inout _EmbeddingIndex<Parent>) -> _Changes {
        var changes = _Changes()
        for event in events {
            switch event {
            case .inserted(let parent), .updated(let parent):
                if query.isIncluded(parent) {
                    changes.embed[parent.id] = parent
                    changes.removed.remove(parent.id)
                } else {
                    changes.remove(parent.id, from: &index)
                }
            case .deleted(let id):
                changes.remove(id, from: &index)
            case .invalidated:
                changes.refetch = true
            }
        }
        if relatedTables.contains(table) {
            changes.add(parentsChangedBy: events.map(_RelatedEvent.init), in: table, index: index)
        }
        return changes
    }

    /// Re-embeds the parents `changes` names and applies their rows, with the rows it removes, as one batch.
    private func apply(_ changes: _Changes) async {
        guard !changes.refetch else { return await refetch() }
        guard !changes.embed.isEmpty || !changes.removed.isEmpty else { return }
        let parents = Array(changes.embed.values)
        router.beginReading(follower)
        var keys = (added: Set<_ReadKey>(), removed: Set<_ReadKey>())
        defer { router.endReading(follower, keys: keys) }
        do {
            let embeddings = try await Self.embeddings(
                of: parents, select: select, table: table, by: embedder, encoder: encoder)
            let sectionName = query.sectionNameKeyPath
            var events: [EntityEvent<EmbeddedRow<Parent>>] = index.state.withLockedValue { index in
                let events = zip(parents, embeddings).map { parent, embedding in
                    index.record(parent, reads: embedding.reads)
                    return EntityEvent.updated(Self.row(parent, embedding, sectionName: sectionName))
                }
                keys = index.takeKeyChanges()
                return events
            }
            events += changes.removed.map { .deleted($0) }
            _ = controller.apply(events)
        } catch {
            // A related table could not be read: the rows are read again, whole, as after an invalidation.
            await refetch()
        }
    }

    /// Fetches the query again; a failure leaves the results as they were, until the next event or fetch.
    private func refetch() async {
        _ = try? await controller.performFetch()
    }

    /// What a batch of events changes.
    private struct _Changes {
        /// The parents to embed again, by id (the parent as it is now).
        var embed: [Parent.ID: Parent] = [:]
        /// The parents that left the query.
        var removed: Set<Parent.ID> = []
        /// Whether the whole query is read again.
        var refetch = false

        mutating func remove(_ id: Parent.ID, from index: inout _EmbeddingIndex<Parent>) {
            embed[id] = nil
            if index.remove(id) { removed.insert(id) }
        }

        /// Adds the parents whose embeddings `events` of `table` can change.
        mutating func add(parentsChangedBy events: [_RelatedEvent], in table: String, index: _EmbeddingIndex<Parent>) {
            for event in events {
                guard let ids = index.parents(changedBy: event, in: table) else {
                    refetch = true
                    return
                }
                for id in ids where embed[id] == nil && !removed.contains(id) {
                    embed[id] = index.parents[id]
                }
            }
        }
    }

    /// The embeddings of `parents`, in order.
    private static func embeddings(
        of parents: [Parent], select: SelectList, table: String, by embedder: _Embedder, encoder: JSONEncoder
    ) async throws -> [_Embedding] {
        let rows = try parents.map { try _EmbeddedRow($0, encoder: encoder) }
        return try await embedder.embeddings(of: rows, select: select, table: table)
    }

    private static func row(
        _ parent: Parent, _ embedding: _Embedding, sectionName: (KeyPath<Parent, String> & Sendable)?
    ) -> EmbeddedRow<Parent> {
        EmbeddedRow(
            parent: parent, object: embedding.object, sectionName: sectionName.map { parent[keyPath: $0] } ?? "")
    }
}
