import Foundation
import LiveResults
import Synchronization

/// The live embeddings of a live-queries route: one ``LiveEmbedding`` per query and `select=`, shared by the
/// streams that ask for it, released with the last of them. Their related tables are followed once, and each
/// related event goes to the embeddings that read the row it changes.
package final class _LiveEmbeddings<Source: QueryableSource>: Sendable where Source.Entity: Codable {
    /// An embedding, held weakly (its streams hold it), and its first fetch.
    private struct Entry: Sendable {
        weak var embedding: LiveEmbedding<Source>?
        let fetched: Task<Void, any Error>
    }

    private let source: Source
    private let route: _LiveQueryRoute
    /// The route's related tables, followed once for all its embeddings.
    private let router: _RelatedRouter
    private let encoder: JSONEncoder
    private let entries = Mutex<[String: Entry]>([:])

    package init(source: Source, route: _LiveQueryRoute, encoder: JSONEncoder = JSONEncoder()) {
        self.source = source
        self.route = route
        self.encoder = encoder
        router = _RelatedRouter(relations: route.relations)
    }

    /// The embedding of `select` in the rows of `query`, fetched: the one streams of the same query and
    /// `select=` share, or a new one.
    ///
    /// - Throws: PostgREST's error for a relationship; the fetch's error.
    /// - Complexity: O(*e*) for the *e* embeddings the route holds (the released ones are let go), plus the
    ///   first fetch of a new one.
    package func embedding(of select: SelectList, in query: LiveQuery<Source.Entity>) async throws -> LiveEmbedding<
        Source
    > {
        let key = query.key + "\u{1}" + select.description
        let (embedding, fetched) = try entries.withLock { entries throws(PostgRESTError) in
            entries = entries.filter { $0.value.embedding != nil }
            if let entry = entries[key], let embedding = entry.embedding { return (embedding, entry.fetched) }
            let embedding = try LiveEmbedding(
                query: query, select: select, table: route.table, source: source, relations: route.relations,
                router: router, encoder: encoder)
            let fetched = Task { try await embedding.fetch() }
            entries[key] = Entry(embedding: embedding, fetched: fetched)
            return (embedding, fetched)
        }
        do {
            try await fetched.value
        } catch {
            entries.withLock { entries in
                if entries[key]?.embedding === embedding { entries[key] = nil }
            }
            throw error
        }
        return embedding
    }
}
