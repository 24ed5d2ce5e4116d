import LiveResults

extension LiveResultsOptions {
    /// The registry of a route of live queries of `source`, indexed by the columns clients may filter on, with
    /// these options' limits.
    ///
    /// `@inlinable`, and called from the adapters' `@inlinable` entry points: so the registry is made in the
    /// module that adds the routes, where the entity type is known, and every event the routes follow runs code
    /// specialized for it (see `LiveQueryRegistry`'s initializer).
    ///
    /// - Complexity: O(*f*) for *f* filter columns.
    @inlinable package func _liveQueryRegistry<Source: QueryableSource>(
        of source: Source, indexing filters: [String]
    ) -> LiveQueryRegistry<Source> {
        LiveQueryRegistry(
            source: source, indexing: Array(Set(filters)), maximumQueries: maximumLiveQueries,
            gracePeriod: liveQueryGracePeriod)
    }
}
