import Foundation

/// Live windows: slices of the results with change sets of their own (see ``LiveWindow``).
extension FetchedResultsController {
    /// A live window of the results at `range`: positions counted across sections in the controller's order.
    ///
    /// ```swift
    /// let top = controller.window(.first(50))
    /// let page = controller.window(.range(offset: 100, limit: 50))
    /// ```
    ///
    /// Any number of windows share the controller's storage; each copies no entities. A window made before
    /// the first fetch is empty and fills with it; one made while paused holds positions of the frozen
    /// results, as every reader does.
    ///
    /// - Precondition: The range's limit and offset are not negative.
    /// - Complexity: O(log *W*) for *W* windows, plus O(*W* log *W*) at the next change set to index them.
    @inlinable public func window(_ range: WindowRange) -> LiveWindow<Entity> {
        range.checkValid()
        let registry = _windowRegistry()
        let id = _withObservedStorage { storage in
            registry.state.withLock { state in
                defer { state.nextID += 1 }
                state.windows[state.nextID] = _WindowState(
                    range: range, positions: range.positions(count: storage.count))
                state.isIndexStale = true
                return state.nextID
            }
        }
        return LiveWindow(controller: self, registry: registry, id: id)
    }

    /// The registry of the controller's windows, made and subscribed to the controller's change sets with the
    /// first window.
    ///
    /// The subscription is made outside the lock of ``_windows``: making it delivers what coalescing holds, and
    /// an observer may make a window from its callback, which takes that lock again. Of two threads that make
    /// the first window at once, one registry is kept and the other one's subscription cancelled.
    @inlinable func _windowRegistry() -> _WindowRegistry<Entity> {
        if let registry = _windows.withLock({ $0?.registry }) { return registry }
        let registry = _WindowRegistry<Entity>()
        let subscription = _addQueueObserver { [weak self] changes, storage, rebuilds, scheduler in
            guard let self else { return nil }
            return registry.follow(changes, after: storage, rebuilds: rebuilds, scheduler: scheduler, controller: self)
        }
        let (kept, surplus) = _windows.withLock { windows -> (_WindowRegistry<Entity>, EventSubscription?) in
            if let windows { return (windows.registry, subscription) }
            windows = (registry, subscription)
            return (registry, nil)
        }
        surplus?.cancel()
        return kept
    }

    /// Runs `body` under the lock with the results the observers have and where their callbacks run, queues
    /// what it returns to run after the deliveries waiting, and delivers: for a derived view's own change,
    /// which its observers must receive in order with the controller's.
    @inlinable func _withObservers<Result>(
        _ body: (_SectionedStorage<Entity>, CallbackScheduler) -> (Result, (@Sendable () -> Void)?)
    ) -> Result {
        commit { state, _ in
            let (result, action) = body(state.observedStorage, state.callbackScheduler)
            if let action { state.engine.appendPending(.action(action)) }
            return result
        }
    }
}
