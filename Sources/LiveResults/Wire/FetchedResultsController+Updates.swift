/// Results over the wire: the controller's versions and its update streams (see <doc:ResultsOverTheWire>).
extension FetchedResultsController where Entity: Codable {
    /// The updates of the results from now on, for a copy kept elsewhere (a ``ResultsReplica``).
    ///
    /// The stream starts with the whole results the observers have, or, when `version` names one of this
    /// controller's versions that it still holds (see ``versionHistoryLimit``), with one change set from
    /// that version to them: a resume after a reconnect costs the changes, not the results. A version
    /// that is not held (too old, another controller's, from the future) gets the whole results. Then
    /// every change set delivered to the observers follows as one update, refetches, resets, resumes
    /// and coalesced deliveries included.
    ///
    /// ```swift
    /// for await update in controller.updates(since: ResultsVersion(lastEventID)) {
    ///     try await send(JSONEncoder().encode(update))
    /// }
    /// ```
    ///
    /// A consumer that reads slowly never makes the stream hold more than `bufferLimit` updates: beyond
    /// that, what it has not read is replaced by one catch-up update from the last version it read, and
    /// counted in ``ControllerStatistics/collapsedUpdateBacklogs``.
    ///
    /// - Parameters:
    ///   - version: The version the consumer has, or `nil` for the whole results.
    ///   - bufferLimit: The most updates held for a consumer that does not read; at least 1.
    /// - Returns: The stream; its iterator owns the subscription (see ``ResultsUpdates``).
    /// - Complexity: O(1) under the lock, plus what coalescing held; the first update costs O(*k* log *n*)
    ///   for a catch-up of *k* changes (the earlier results are rebuilt under the lock, the change set
    ///   computed outside it) or O(*n*) for the whole results, computed when it is read.
    @inlinable public func updates(since version: ResultsVersion? = nil, bufferLimit: Int = 128) -> ResultsUpdates<
        Entity
    > {
        let subscriber = _UpdateSubscriber<Entity>(bufferLimit: bufferLimit)
        let (id, origin) = commit { state, _ in
            // What coalescing held goes to the earlier observers: this one starts from the current results.
            state.flushCoalesced()
            if state.core.undo == nil { state.core.undo = _VersionUndo() }
            let id = state.updates.subscribe(subscriber, since: version, observed: state.observedStorage)
            return (id, state.updates.origin)
        }
        let subscription = _UpdateSubscription(
            subscriber: subscriber, origin: origin,
            unsubscribe: { [weak self] in
                subscriber.cancel()
                self?._state.withLock { state in
                    state.updates.unsubscribe(id)
                    if !state.updates.isRecording { state.core.undo = nil }
                }
            },
            resolve: { [weak self] from in
                self?._state.withLock { state in
                    subscriber.settle(at: state.updates.sequence)
                    if let from,
                        let rewound = state.updates.rewound(
                            to: from, from: state.core.storage, pending: state.core.undo)
                    {
                        return _CatchUp(
                            earlier: rewound.earlier, now: rewound.now, sequence: state.updates.sequence,
                            isRebuilt: rewound.isRebuilt)
                    }
                    return _CatchUp(
                        earlier: nil, now: state.observedStorage, sequence: state.updates.sequence, isRebuilt: false)
                }
            })
        return ResultsUpdates(_subscription: subscription)
    }

    /// The whole results the observers have, as an update at their version: what a client that starts
    /// over receives.
    ///
    /// - Complexity: O(*n*).
    @inlinable public func wholeResults() -> ResultsUpdate<Entity> {
        let (storage, version) = _state.withLock { ($0.observedStorage, $0.updates.version) }
        return ResultsUpdate(version: version, wholeResultsOf: storage)
    }
}

extension FetchedResultsController {
    /// The version of the results the observers have: each change set delivered to them makes a new one.
    ///
    /// While paused, the version of the frozen results. See ``ResultsVersion``.
    ///
    /// - Complexity: O(1).
    @inlinable public var version: ResultsVersion {
        _state.withLock { $0.updates.version }
    }

    /// The most recent versions the controller holds for ``updates(since:bufferLimit:)`` to resume from
    /// with a catch-up change set: 1,024 by default, at least 1.
    ///
    /// Versions are held while an update stream is open and for ``versionHistoryRetention`` after the
    /// last one closed, and only then. A held version keeps what its change replaced: the earlier
    /// versions of the entities it touched (or, for a fetch, a resort or a reset, the results it
    /// replaced), not a snapshot, so holding versions does not make later changes copy anything.
    ///
    /// - Complexity: O(1); lowering it releases the oldest versions, O(*m*) for *m* of them.
    @inlinable public var versionHistoryLimit: Int {
        get { _state.withLock { $0.updates.historyLimit } }
        set { _state.withLock { $0.updates.setHistoryLimit(newValue) } }
    }

    /// How long versions are still held after the last update stream closed, so that a client that
    /// reconnects within it resumes with a catch-up: 60 seconds by default. `.zero` releases them at once.
    ///
    /// - Complexity: O(1).
    @inlinable public var versionHistoryRetention: Duration {
        get { _state.withLock { $0.updates.retention } }
        set { _state.withLock { $0.updates.retention = Swift.max(.zero, newValue) } }
    }
}
