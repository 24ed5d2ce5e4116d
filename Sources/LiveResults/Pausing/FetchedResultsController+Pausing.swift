extension FetchedResultsController {
    /// Freezes what readers see and holds every change set back from the observers until ``resume()``.
    ///
    /// While paused, ``snapshot``, ``sections``, ``fetchedObjects``, ``object(at:)`` and
    /// ``indexPath(for:)`` read the results as they were at the pause; the delegate and ``changes``
    /// receive nothing. The controller itself goes on: events, fetches, pages and associated values
    /// apply, and ``apply(_:)-([EntityEvent<Entity>])`` still returns the live change set. Pausing a
    /// paused controller does nothing.
    ///
    /// ```swift
    /// controller.pause()                  // the user starts dragging a row
    /// // … events keep arriving …
    /// let missed = controller.resume()    // one change set from the frozen results to the current ones
    /// ```
    ///
    /// With a ``coalescingInterval``, what coalescing held is delivered first, so that the observers have
    /// the frozen results.
    ///
    /// - Complexity: O(1), plus the composition of what coalescing held.
    @inlinable public func pause() {
        commit { state, _ in state.pause() }
    }

    /// Ends a pause: returns, and delivers to the observers, one change set that turns the frozen
    /// results into the current ones.
    ///
    /// The change set follows the whole contract of ``ChangeSet``: minimal moves, and updates for the
    /// entities whose content differs between the two (an entity inserted and deleted during the pause,
    /// or changed and changed back, does not appear). Nothing changed: an empty change set, and nothing
    /// is delivered. Without a pause: an empty change set. ``reset()`` also resumes.
    ///
    /// - Returns: The change set from the frozen results to the current ones.
    /// - Complexity: O(*k* log *n*) for the *k* entities that changed during the pause; O(*n*) when a
    ///   fetch, a resort or a reset happened meanwhile.
    @discardableResult
    @inlinable public func resume() -> ChangeSet<Entity> {
        commit { state, _ in state.resume() }
    }

    /// Whether the controller is paused (see ``pause()``).
    @inlinable public var isPaused: Bool {
        _state.withLock { $0.paused != nil }
    }

    /// The shortest time between two deliveries to the observers; `.zero` (the default) delivers every
    /// change set as it happens.
    ///
    /// With an interval, every change still applies at once (reads and the change set
    /// ``apply(_:)-([EntityEvent<Entity>])`` returns are current), but the delegate and ``changes``
    /// receive at most one change set per interval: the composition of everything since their last
    /// delivery, under the whole contract of ``ChangeSet`` (an entity inserted and deleted within one
    /// interval does not appear, nor does an update reverted within one). A change after a quiet interval
    /// is delivered at once. A negative interval counts as zero; setting zero delivers what was held.
    ///
    /// ```swift
    /// controller.coalescingInterval = .milliseconds(50)   // at most 20 UI updates a second
    /// ```
    ///
    /// While an interval is set, the controller keeps the version its observers last received, so each
    /// change copies the nodes on its path that this version shares, as with a snapshot held.
    ///
    /// - Complexity: O(1) to read. Setting it may deliver what was held: O(*k* log *n*) for the *k*
    ///   entities changed since the observers' version (O(*n*) after a fetch, a resort or a reset).
    @inlinable public var coalescingInterval: Duration {
        get { _state.withLock { $0.coalescing.interval } }
        set {
            commit { state, _ in state.setCoalescingInterval(newValue) }
        }
    }

    /// Waits until `deadline` on the controller's clock in a task of its own, then delivers what coalescing
    /// holds; the task does not keep the controller alive.
    @inlinable func deliverCoalesced(at deadline: _ControllerClock.Instant) {
        let clock = _state.withLock { $0.clock }
        Task { [weak self] in
            try? await clock.sleep(until: deadline)
            guard let self else { return }
            commit { state, _ in state.coalescing.wokeUp(at: deadline) }
        }
    }
}
