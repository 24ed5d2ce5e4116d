extension FetchedResultsController {
    /// The versions the controller and its windows hold for their update streams to resume from, and an estimate
    /// of their bytes (see ``HeldVersions``): for metrics, read now and then.
    ///
    /// The controller holds versions while an update stream is open and for a while after (see
    /// ``updates(since:bufferLimit:)``), each window once one of its streams opened (see
    /// ``LiveWindow/updates(since:bufferLimit:)``).
    ///
    /// - Complexity: O(*W* + *v*) for *W* windows and *v* versions held, under the controller's lock and then its
    ///   windows', one after the other.
    public var heldVersions: HeldVersions {
        let own = _state.withLock { state in
            let feed = state.updates
            var held = HeldVersions()
            for delta in feed.history[feed.historyStart...] {
                guard let delta else { continue }
                held.count += 1
                held.estimatedBytes += HeldVersions.estimatedBytes(
                    of: delta.undo, in: Optional<_UpdateFeed<Entity>.Delta>.self)
            }
            return held
        }
        guard let registry = _windows.withLock({ $0?.registry }) else { return own }
        return registry.state.withLock { state in
            var held = own
            for window in state.windows.values {
                held.count += window.history.count
                for version in window.history {
                    held.estimatedBytes += HeldVersions.estimatedBytes(
                        of: version.undo, in: _WindowState<Entity>.HeldVersion.self)
                }
            }
            return held
        }
    }
}
