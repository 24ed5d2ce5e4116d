import Foundation

/// A window over the wire: its own versions and update streams, in the form of a controller's (the *ResultsOverTheWire*
/// article).
extension LiveWindow where Entity: Codable {
    /// The updates of the window from now on, for a ``ResultsReplica`` kept elsewhere: exactly like
    /// ``FetchedResultsController/updates(since:bufferLimit:)``, in window coordinates and with the window's
    /// own versions.
    ///
    /// The stream starts with the whole window, or, when `version` names a version of this window that it
    /// still holds (its last 256 change sets once a stream was opened, or 128 more than the largest
    /// `bufferLimit` of its streams, up to 1,024), with one change set from it. Then
    /// every change set of the window follows as one update, ``move(to:)`` included. A consumer that falls
    /// more than `bufferLimit` updates behind gets one catch-up instead of what it did not read: a change set
    /// while the window still holds the version it read, the whole window after that.
    ///
    /// A held version keeps what its change set changed (the entities it removed or replaced), not the
    /// window's contents: its cost is its change's, and a catch-up undoes the later versions from the window's
    /// current entities, as the controller's own streams do (see ``FetchedResultsController/versionHistoryLimit``).
    ///
    /// - Parameters:
    ///   - version: The version the consumer has, or `nil` for the whole window.
    ///   - bufferLimit: The most updates held for a consumer that does not read; at least 1.
    /// - Returns: The stream; its iterator owns the subscription (see ``ResultsUpdates``).
    /// - Complexity: O(1) to subscribe; the first update costs O(*w* log *n*) for a window of *w* entities.
    @inlinable public func updates(since version: ResultsVersion? = nil, bufferLimit: Int = 128) -> ResultsUpdates<
        Entity
    > {
        let subscriber = _UpdateSubscriber<Entity>(bufferLimit: bufferLimit)
        let (id, origin) = controller._withObservedStorage { storage in
            _registry.state.withLock { state -> (UInt64?, UInt64) in
                state.holdVersions(of: _id, in: storage)
                guard state.windows[_id] != nil else {
                    subscriber.end()
                    return (nil, 0)
                }
                // Changed in place: a copy of the window's state, written back, would copy its streams (all of
                // them, for each one that opens) and its history.
                subscriber.start(with: .catchUp(from: version.flatMap { state.windows[_id]!.heldSequence(for: $0) }))
                state.windows[_id]!.holdVersions(forBufferLimit: bufferLimit)
                state.windows[_id]!.updateSubscribers[state.nextID] = subscriber
                defer { state.nextID += 1 }
                return (state.nextID, state.windows[_id]!.origin)
            }
        }
        let subscription = _UpdateSubscription(
            subscriber: subscriber, origin: origin,
            name: { [weak registry = _registry, id = _id] sequence in
                registry?.state.withLock { $0.windows[id]?.name(of: sequence) }
            },
            unsubscribe: { [weak self] in
                subscriber.cancel()
                guard let self, let id else { return }
                _ = _registry.state.withLock { $0.windows[_id]?.updateSubscribers.removeValue(forKey: id) }
            },
            resolve: { [weak self] from in
                guard let self else { return nil }
                return controller._withObservedStorage { storage in
                    _registry.state.withLock { state -> _CatchUp<Entity>? in
                        guard let window = state.windows[_id] else { return nil }
                        subscriber.settle(at: window.sequence)
                        let now = _WindowState.entities(of: storage, at: window.positions)
                        return _CatchUp(
                            earlier: from.flatMap { window.entities(atVersion: $0, from: now) }, now: now,
                            sequence: window.sequence, isRebuilt: true)
                    }
                }
            })
        return ResultsUpdates(_subscription: subscription)
    }

    /// The whole window as an update at its version: what a client that starts over receives.
    ///
    /// - Complexity: O(*w* log *n*) for a window of *w* entities.
    @inlinable public func wholeResults() -> ResultsUpdate<Entity> {
        // The storage is a value: the window's entities are listed after both locks are released, so that a
        // large window does not hold up the controller's events while it is copied.
        let (storage, version, positions) = controller._withObservedStorage { storage in
            _registry.state.withLock { state in
                let window = state.windows[_id]
                return (
                    storage, window.map { $0.name(of: $0.sequence) } ?? ResultsVersion(origin: 0, sequence: 0),
                    window?.positions ?? 0..<0
                )
            }
        }
        return ResultsUpdate(version: version, wholeResultsOf: _WindowState.entities(of: storage, at: positions))
    }

    /// The window's version: each change set it delivers makes a new one.
    ///
    /// - Complexity: O(1).
    @inlinable public var version: ResultsVersion {
        _registry.state.withLock { state in
            state.windows[_id].map { $0.name(of: $0.sequence) } ?? ResultsVersion(origin: 0, sequence: 0)
        }
    }

    /// Names the window's versions by its contents from now on, so that another process whose window holds
    /// the same contents resolves them: a client that reconnects to any process of a service, with the
    /// version it read from another, resumes with one catch-up when that process's window held those
    /// contents among its recent versions (see ``updates(since:bufferLimit:)``), and gets the whole window
    /// otherwise.
    ///
    /// A version is then named by `scope` (the query the window shows: windows of other scopes never
    /// resolve it) and a 64-bit digest of the window's entities: the sum of a digest of each one's JSON (keys
    /// sorted), which a change set updates by the entities it changes. Two
    /// windows with the same contents give the same name, and a catch-up from either is the same change set:
    /// what a replica needs is the contents it has, not who made them. Processes that follow one database in
    /// the same commit order (PostgreSQL's write-ahead log, or its notifications) pass through the same
    /// contents, so their names meet. A process that has not yet reached a client's version, or whose
    /// window changed more than the versions it holds since (see ``updates(since:bufferLimit:)``), sends the
    /// whole window.
    ///
    /// ```swift
    /// let window = results.window(.first(50))
    /// window.nameVersionsByContents(scope: results.query.key)
    /// for await update in window.updates(since: ResultsVersion(lastEventID)) { … }
    /// ```
    ///
    /// It holds the window's versions from now on, as an update stream does, and keeps the names of its last
    /// 4,096: a stream whose `bufferLimit` is above that can fall behind the names it needs.
    ///
    /// Entities that are equal (`==`) must encode alike: a change the window does not see as an update would
    /// leave the name of its contents behind them (a client would then get the whole window, never a wrong one).
    ///
    /// - Parameter scope: What the window shows, the same in every process: a live query's key.
    /// - Complexity: O(*w*) encodings for a window of *w* entities, the first time; then O(*k*) for each
    ///   version the window delivers, for the *k* entities its change set changes.
    @inlinable public func nameVersionsByContents(scope: String) {
        let origin = _ContentDigest.of(scope)
        let digest: _WindowState<Entity>.EntityDigest = { _ContentDigest.of($0) }
        controller._withObservedStorage { storage in
            _registry.state.withLock { state in
                state.holdVersions(of: _id, in: storage)
                state.windows[_id]?.nameVersionsByContents(origin: origin, digest: digest, from: storage)
            }
        }
    }
}
