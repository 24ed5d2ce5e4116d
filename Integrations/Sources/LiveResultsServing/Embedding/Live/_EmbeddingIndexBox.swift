import LiveResults
import NIOConcurrencyHelpers

/// The index of a ``LiveEmbedding``, behind its lock: the fetch writes it from the controller's request, the
/// run's task from events.
final class _EmbeddingIndexBox<Parent: QueryableEntity>: Sendable {
    let state = NIOLockedValueBox(_EmbeddingIndex<Parent>())
}
