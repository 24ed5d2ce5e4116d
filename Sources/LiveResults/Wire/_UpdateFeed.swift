/// The controller's side of its update streams, guarded by its lock: the version counter, what turns the
/// recent versions back into the ones before them, and the open streams.
///
/// Every change set delivered to the observers makes a version. While a stream is open, and for
/// ``retention`` after the last one closed, the feed keeps for each version the ``_VersionUndo`` that
/// led to it, in a bounded history, so that ``FetchedResultsController/updates(since:bufferLimit:)``
/// answers a recent version with one catch-up change set: the results of that version are the current
/// ones with the later versions undone (``rewound(to:from:pending:)``).
///
/// It holds no snapshot per version: a version's results exist only while a catch-up is computed, so
/// a change copies no node for the history (a snapshot per version made every change with a stream open
/// copy its path and later free it: three times the cost of a delegate).
@usableFromInline struct _UpdateFeed<Entity: FetchableEntity>: Sendable {
    /// What a delivered version changed: how to turn it back into the version before it.
    @usableFromInline struct Delta: Sendable {
        @usableFromInline let undo: _VersionUndo<Entity>
        /// The number of rebuilds delivered before this version.
        @usableFromInline let rebuildsBefore: UInt64

        @inlinable init(undo: _VersionUndo<Entity>, rebuildsBefore: UInt64) {
            self.undo = undo
            self.rebuildsBefore = rebuildsBefore
        }
    }

    /// Names this controller in its versions.
    @usableFromInline let origin = UInt64.random(in: .min ... .max)
    /// The number of the version the observers have.
    @usableFromInline var sequence: UInt64 = 0
    /// The number of rebuilds delivered so far.
    @usableFromInline var rebuilds: UInt64 = 0
    /// Whether versions are recorded: a stream is open, or the last closed less than ``retention`` ago.
    @usableFromInline var isRecording = false
    /// The deltas of the versions after the oldest held one, oldest first, from `historyStart` on (earlier
    /// slots are released): the last one led to ``sequence``.
    @usableFromInline var history: [Delta?] = []
    @usableFromInline var historyStart = 0
    /// The most versions held, the current one included; see ``FetchedResultsController/versionHistoryLimit``.
    @usableFromInline var historyLimit = 1024
    /// How long versions are still recorded after the last stream closed.
    @usableFromInline var retention: Duration = .seconds(60)
    @usableFromInline var retainedUntil: ContinuousClock.Instant?
    @usableFromInline var subscribers: [UInt64: _UpdateSubscriber<Entity>] = [:]
    @usableFromInline var nextSubscriberID: UInt64 = 0

    @inlinable init() {}

    @inlinable var version: ResultsVersion { ResultsVersion(origin: origin, sequence: sequence) }

    /// The number of deltas held.
    @inlinable var deltaCount: Int { history.count - historyStart }

    /// Whether the version numbered `version` can be rebuilt: the current one, or one whose later
    /// versions' deltas are all held.
    @inlinable func holds(_ version: UInt64) -> Bool {
        isRecording && version <= sequence && sequence - version <= UInt64(deltaCount)
    }

    /// The results of `version` and of the current version, from `current`, the storage now, and `pending`,
    /// what changed it since the current version (see ``_ResultsCore/undo``); `nil` when `version` is
    /// not held.
    ///
    /// Runs under the controller's lock: versions of the storage that share nodes are changed only there.
    ///
    /// - Returns: Both results, and whether a rebuild lies between them (their change set is then a
    ///   full diff).
    /// - Complexity: O(*k* log *n*) for the *k* changes since `version`.
    @inlinable func rewound(
        to version: UInt64, from current: _SectionedStorage<Entity>, pending: _VersionUndo<Entity>?
    ) -> (earlier: _SectionedStorage<Entity>, now: _SectionedStorage<Entity>, isRebuilt: Bool)? {
        guard holds(version) else { return nil }
        var storage = current
        pending?.undo(&storage)
        let now = storage
        var isRebuilt = pending?._replaced != nil
        let count = Int(sequence - version)
        for index in stride(from: history.count - 1, through: history.count - count, by: -1) {
            let delta = history[index]!
            delta.undo.undo(&storage)
            if delta.undo._replaced != nil || delta.rebuildsBefore != rebuilds { isRebuilt = true }
        }
        return (storage, now, isRebuilt)
    }

    /// Counts a delivered change set as the next version, recording what led to it while streams may
    /// need it, and queues it for the streams.
    ///
    /// - Parameters:
    ///   - undo: What the change set's changes replaced (``_ResultsCore/undo``).
    ///   - storage: The results after the change set.
    ///   - rebuilt: Whether the change set comes from a rebuild (fetch, resort, reset) since the last version.
    ///   - wake: Receives the streams' waiting consumers, to resume once the lock is released.
    /// - Returns: How many streams fell behind by more than their bound with this version.
    /// - Complexity: O(*k* log₁₆ *n*) for the *k* inserted and updated entities, which the streams' update
    ///   carries, when a stream is open.
    @inlinable mutating func advance(
        _ changes: ChangeSet<Entity>, undo: _VersionUndo<Entity>?, after storage: _SectionedStorage<Entity>,
        rebuilt: Bool, wake: (_UpdateWaiter) -> Void
    ) -> Int {
        let rebuildsBefore = rebuilds
        sequence += 1
        if rebuilt { rebuilds += 1 }
        guard isRecording else { return 0 }
        if subscribers.isEmpty, let retainedUntil, ContinuousClock.now >= retainedUntil {
            stopRecording()
            return 0
        }
        record(Delta(undo: undo ?? _VersionUndo(), rebuildsBefore: rebuildsBefore))
        guard !subscribers.isEmpty else { return 0 }
        let item = _UpdateSubscriber<Entity>.Item.changes(
            _VersionChanges(
                changes,
                inserted: changes.insertedItemIDs.map { storage.stored(forID: $0).unsafelyUnwrapped.entity },
                updated: changes.updatedItemIDs.map { storage.stored(forID: $0).unsafelyUnwrapped.entity },
                sequence: sequence))
        var collapsed = 0
        for subscriber in subscribers.values {
            let outcome = subscriber.push(item)
            if outcome.collapsed { collapsed += 1 }
            if let waiter = outcome.waiter { wake(waiter) }
        }
        return collapsed
    }

    @inlinable mutating func record(_ delta: Delta) {
        history.append(delta)
        trim()
    }

    /// Drops the oldest deltas beyond the limit; the released slots go once they are half the array:
    /// O(1) amortized per version.
    @inlinable mutating func trim() {
        while deltaCount > historyLimit - 1 {
            history[historyStart] = nil
            historyStart += 1
        }
        if historyStart > 32 && historyStart * 2 > history.count {
            history.removeFirst(historyStart)
            historyStart = 0
        }
    }

    @inlinable mutating func stopRecording() {
        isRecording = false
        retainedUntil = nil
        history.removeAll()
        historyStart = 0
    }

    /// Opens a stream on the results the observers have, `observed`.
    ///
    /// - Returns: The stream's id.
    @inlinable mutating func subscribe(
        _ subscriber: _UpdateSubscriber<Entity>, since version: ResultsVersion?, observed: _SectionedStorage<Entity>
    ) -> UInt64 {
        isRecording = true
        retainedUntil = nil
        if let version, version.origin == origin, holds(version.sequence) {
            subscriber.start(with: .catchUp(from: version.sequence))
        } else {
            subscriber.start(with: .whole(_VersionResults(observed, sequence: sequence)))
        }
        defer { nextSubscriberID += 1 }
        subscribers[nextSubscriberID] = subscriber
        return nextSubscriberID
    }

    /// Closes a stream; the history is kept for ``retention`` after the last one.
    @inlinable mutating func unsubscribe(_ id: UInt64) {
        guard subscribers.removeValue(forKey: id) != nil, subscribers.isEmpty else { return }
        if retention > .zero {
            retainedUntil = .now + retention
        } else {
            stopRecording()
        }
    }

    /// Sets how many versions are held, dropping the oldest beyond it.
    @inlinable mutating func setHistoryLimit(_ limit: Int) {
        historyLimit = Swift.max(1, limit)
        trim()
    }
}
