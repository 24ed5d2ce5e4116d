/// The controller's side of its update streams, guarded by its lock: the version counter, the recent
/// versions a stream can resume from, and the open streams.
///
/// Every change set delivered to the observers makes a version. While a stream is open, and for
/// ``retention`` after the last one closed, the feed records each version's results (an O(1) copy that
/// shares every node) in a bounded history, so that ``FetchedResultsController/updates(since:bufferLimit:)``
/// answers a recent version with one catch-up change set.
@usableFromInline struct _UpdateFeed<Entity: FetchableEntity>: Sendable {
    /// Names this controller in its versions.
    @usableFromInline let origin = UInt64.random(in: .min ... .max)
    /// The number of the version the observers have.
    @usableFromInline var sequence: UInt64 = 0
    /// The number of rebuilds delivered so far.
    @usableFromInline var rebuilds: UInt64 = 0
    /// Whether versions are recorded: a stream is open, or the last closed less than ``retention`` ago.
    @usableFromInline var isRecording = false
    /// The recorded versions, oldest first, from `historyStart` on (earlier slots are released).
    @usableFromInline var history: [_VersionPoint<Entity>?] = []
    @usableFromInline var historyStart = 0
    /// The most versions recorded; see ``FetchedResultsController/versionHistoryLimit``.
    @usableFromInline var historyLimit = 1024
    /// How long versions are still recorded after the last stream closed.
    @usableFromInline var retention: Duration = .seconds(60)
    @usableFromInline var retainedUntil: ContinuousClock.Instant?
    @usableFromInline var subscribers: [UInt64: _UpdateSubscriber<Entity>] = [:]
    @usableFromInline var nextSubscriberID: UInt64 = 0

    @inlinable init() {}

    @inlinable var version: ResultsVersion { ResultsVersion(origin: origin, sequence: sequence) }

    @inlinable func point(_ storage: _SectionedStorage<Entity>) -> _VersionPoint<Entity> {
        _VersionPoint(sequence: sequence, storage: storage, rebuilds: rebuilds)
    }

    /// The recorded version numbered `sequence`, if it is held.
    @inlinable func recorded(_ sequence: UInt64) -> _VersionPoint<Entity>? {
        guard historyStart < history.count, let oldest = history[historyStart]?.sequence, sequence >= oldest,
            sequence - oldest < UInt64(history.count - historyStart)
        else { return nil }
        return history[historyStart + Int(sequence - oldest)]
    }

    /// Counts a delivered change set as the next version, recording it while streams may need it.
    ///
    /// - Parameters:
    ///   - storage: The results after the change set.
    ///   - rebuilt: Whether the change set comes from a rebuild (fetch, resort, reset) since the last version.
    ///   - wake: Receives the streams' waiting consumers, to resume once the lock is released.
    /// - Returns: How many streams fell behind by more than their bound with this version.
    @inlinable mutating func advance(
        _ changes: ChangeSet<Entity>, after storage: _SectionedStorage<Entity>, rebuilt: Bool,
        wake: (UnsafeContinuation<Void, Never>) -> Void
    ) -> Int {
        sequence += 1
        if rebuilt { rebuilds += 1 }
        guard isRecording else { return 0 }
        if subscribers.isEmpty, let retainedUntil, ContinuousClock.now >= retainedUntil {
            stopRecording()
            return 0
        }
        let point = point(storage)
        record(point)
        var collapsed = 0
        for subscriber in subscribers.values {
            let outcome = subscriber.push(changes, point)
            if outcome.collapsed { collapsed += 1 }
            if let waiter = outcome.waiter { wake(waiter) }
        }
        return collapsed
    }

    @inlinable mutating func record(_ point: _VersionPoint<Entity>) {
        history.append(point)
        while history.count - historyStart > historyLimit {
            history[historyStart] = nil
            historyStart += 1
        }
        // The released slots go once they are half the array: O(1) amortized per version.
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
        let current = point(observed)
        if !isRecording {
            isRecording = true
            record(current)
        }
        retainedUntil = nil
        if let version, version.origin == origin, let held = recorded(version.sequence) {
            subscriber.start(with: .catchUp(from: held, to: current))
        } else {
            subscriber.start(with: .whole(current))
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
        guard history.count - historyStart > historyLimit else { return }
        history.removeFirst(history.count - historyLimit)
        historyStart = 0
    }
}
