/// Coalesced delivery: while an interval is set, observers receive at most one change set per interval,
/// composed from the version they have (the held changes' base) and the current one.
///
/// A state machine under the controller's lock, on instants of the controller's clock (``_ControllerClock``),
/// which its callers pass in: its transitions return what the controller does (queue a change set for the
/// observers now, or start a task that wakes at an instant to look again), and the tests drive it with any
/// instants they choose.
///
/// - `off` ─ an interval set ─▶ `holding`;
/// - `holding` ─ a change within the interval ─▶ `scheduled(wakeUp)` (a task sleeps until the interval's end);
/// - `scheduled` ─ that task wakes, or the interval changes ─▶ `holding`;
/// - `holding`, `scheduled` ─ the interval set to zero ─▶ `off`, delivering what was held.
///
/// A change after the interval, a pause and an observer joining deliver what is held and keep the state.
@usableFromInline struct _Coalescing<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Instant = _ControllerClock.Instant

    /// An interval and what is held within it.
    @usableFromInline struct Window: Sendable {
        /// The shortest time between two deliveries; more than zero.
        @usableFromInline var interval: Duration
        /// What changed since the version the observers have.
        @usableFromInline var held: _HeldChanges<Entity>
        /// When the observers last received a change set from coalescing, if they have.
        @usableFromInline var lastDelivery: Instant?

        @inlinable init(interval: Duration, held: _HeldChanges<Entity>, lastDelivery: Instant?) {
            self.interval = interval
            self.held = held
            self.lastDelivery = lastDelivery
        }
    }

    @usableFromInline enum State: Sendable {
        /// No interval: change sets go to the observers as they happen. An interval set again counts from
        /// `lastDelivery`, the last delivery coalescing made.
        case off(lastDelivery: Instant?)
        /// An interval is set, and no task waits to deliver at its end.
        case holding(Window)
        /// An interval is set, and a task sleeps until `wakeUp` (the end of the interval when it started) to
        /// look again.
        case scheduled(Window, wakeUp: Instant)
    }

    /// What the controller does, under its lock or just after, once a transition returns.
    @usableFromInline enum Action {
        /// Nothing is due, or a task already waits to deliver.
        case nothing
        /// Queue this change set for the observers now; `rebuilt` when a fetch, a resort or a reset rebuilt the
        /// results since the version they have.
        case deliver(ChangeSet<Entity>, rebuilt: Bool)
        /// Start a task that wakes at this instant (the end of the interval since the last delivery), then
        /// reports ``wokeUp(at:)`` and releases what is due.
        case wakeUp(at: Instant)
    }

    @usableFromInline var state = State.off(lastDelivery: nil)

    @inlinable init() {}

    /// The interval set; `.zero` while coalescing is off.
    @inlinable var interval: Duration {
        switch state {
        case .off: .zero
        case .holding(let window), .scheduled(let window, _): window.interval
        }
    }

    /// What changed since the observers' version; `nil` while coalescing is off.
    @inlinable var held: _HeldChanges<Entity>? {
        switch state {
        case .off: nil
        case .holding(let window), .scheduled(let window, _): window.held
        }
    }

    /// Whether an interval is set.
    @inlinable var isOn: Bool {
        if case .off = state { false } else { true }
    }

    /// Sets the interval; a negative one counts as zero. A delivery scheduled by the old interval may come too
    /// late for the new one: it no longer counts, and the next change schedules another.
    ///
    /// - Parameters:
    ///   - observed: The version the observers have (frozen by a pause, or the current one), which the held
    ///     changes start from when coalescing starts.
    ///   - current: The current results.
    /// - Returns: ``Action/deliver(_:rebuilt:)`` with everything held when the interval becomes zero and something
    ///   was; ``Action/nothing`` otherwise.
    @inlinable mutating func setInterval(
        _ interval: Duration, at now: Instant, observed: _SectionedStorage<Entity>, current: _SectionedStorage<Entity>
    ) -> Action {
        let interval = Swift.max(.zero, interval)
        switch state {
        case .off(let lastDelivery):
            guard interval > .zero else { return .nothing }
            state = .holding(Window(interval: interval, held: _HeldChanges(base: observed), lastDelivery: lastDelivery))
            return .nothing
        case .holding(var window), .scheduled(var window, _):
            guard interval > .zero else {
                let action = window.held.isEmpty ? .nothing : Self.take(&window, to: current, at: now)
                state = .off(lastDelivery: window.lastDelivery)
                return action
            }
            window.interval = interval
            state = .holding(window)
            return .nothing
        }
    }

    /// Records a change set held back from the observers.
    @inlinable mutating func hold(_ changes: ChangeSet<Entity>, _ kind: _HeldChanges<Entity>.Kind) {
        // Out of the payload while it changes, so that its set of updated ids is not copied.
        switch state {
        case .off:
            return
        case .holding(var window):
            state = .off(lastDelivery: nil)
            window.held.hold(changes, kind)
            state = .holding(window)
        case .scheduled(var window, let wakeUp):
            state = .off(lastDelivery: nil)
            window.held.hold(changes, kind)
            state = .scheduled(window, wakeUp: wakeUp)
        }
    }

    /// What the controller does with the held changes after a change, at `now`.
    ///
    /// - Returns: ``Action/deliver(_:rebuilt:)`` when something is held and the interval since the last delivery
    ///   is over (or nothing was delivered yet); ``Action/wakeUp(at:)`` at the interval's end when it is not, and
    ///   no task waits yet; ``Action/nothing`` otherwise.
    @inlinable mutating func release(at now: Instant, to current: _SectionedStorage<Entity>) -> Action {
        switch state {
        case .off:
            return .nothing
        case .holding(let window):
            guard !window.held.isEmpty else { return .nothing }
            if let lastDelivery = window.lastDelivery, now < lastDelivery.advanced(by: window.interval) {
                state = .scheduled(window, wakeUp: lastDelivery.advanced(by: window.interval))
                return .wakeUp(at: lastDelivery.advanced(by: window.interval))
            }
        case .scheduled(let window, _):
            guard !window.held.isEmpty else { return .nothing }
            if let lastDelivery = window.lastDelivery, now < lastDelivery.advanced(by: window.interval) {
                return .nothing
            }
        }
        return flush(at: now, to: current)
    }

    /// Delivers what is held, at `now`, whether or not the interval is over: before a pause, and before an
    /// observer joins, so that observers have the same version. A scheduled wake-up stays scheduled.
    ///
    /// - Returns: ``Action/deliver(_:rebuilt:)`` when something is held; ``Action/nothing`` otherwise.
    @inlinable mutating func flush(at now: Instant, to current: _SectionedStorage<Entity>) -> Action {
        switch state {
        case .off:
            return .nothing
        case .holding(var window):
            guard !window.held.isEmpty else { return .nothing }
            // Out of the payload while it changes, so that the held changes are not copied.
            state = .off(lastDelivery: nil)
            let action = Self.take(&window, to: current, at: now)
            state = .holding(window)
            return action
        case .scheduled(var window, let wakeUp):
            guard !window.held.isEmpty else { return .nothing }
            state = .off(lastDelivery: nil)
            let action = Self.take(&window, to: current, at: now)
            state = .scheduled(window, wakeUp: wakeUp)
            return action
        }
    }

    /// The task scheduled to wake at `deadline` woke: a later change may schedule another. A task of an
    /// interval set since changes nothing.
    @inlinable mutating func wokeUp(at deadline: Instant) {
        guard case .scheduled(let window, let wakeUp) = state, wakeUp == deadline else { return }
        state = .holding(window)
    }

    /// A pause ended at `now`, delivering everything from the frozen results to `current`: the held changes
    /// start again from `current`, and the interval from `now`.
    @inlinable mutating func resumed(at now: Instant, to current: _SectionedStorage<Entity>) {
        switch state {
        case .off:
            return
        case .holding(var window):
            window.restart(from: current, at: now)
            state = .holding(window)
        case .scheduled(var window, let wakeUp):
            window.restart(from: current, at: now)
            state = .scheduled(window, wakeUp: wakeUp)
        }
    }

    /// Takes the held changes for a delivery at `now`; from then on, `current` is the version observers have.
    @inlinable static func take(
        _ window: inout Window, to current: _SectionedStorage<Entity>, at now: Instant
    ) -> Action {
        let rebuilt = window.held.isRebuilt
        let changes = window.held.changeSet(to: current)
        window.restart(from: current, at: now)
        return .deliver(changes, rebuilt: rebuilt)
    }
}

extension _Coalescing.Window {
    /// Holds from `current`, delivered at `now`.
    @inlinable mutating func restart(from current: _SectionedStorage<Entity>, at now: _ControllerClock.Instant) {
        held = _HeldChanges(base: current)
        lastDelivery = now
    }
}
