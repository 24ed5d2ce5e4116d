import Foundation

/// Saved results as a fetch shows them, and when they were saved.
@usableFromInline struct _CachedChain<Entity: FetchableEntity>: Sendable {
    @usableFromInline let chain: _PageChain<Entity>
    @usableFromInline let savedAt: Date

    @usableFromInline init(chain: _PageChain<Entity>, savedAt: Date) {
        self.chain = chain
        self.savedAt = savedAt
    }
}
