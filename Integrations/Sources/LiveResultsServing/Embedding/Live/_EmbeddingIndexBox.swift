import LiveResults
import Synchronization

/// The index of a ``LiveEmbedding``, behind its lock: the fetch writes it from the controller's request, the
/// run's task from events.
final class _EmbeddingIndexBox<Parent: QueryableEntity>: Sendable {
    let state = Mutex(_EmbeddingIndex<Parent>())
}
