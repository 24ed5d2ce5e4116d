/// Coalesced delivery: while an interval is set, observers receive at most one change set per interval,
/// composed from the version they have (``held``'s base) and the current one.
@usableFromInline struct _Coalescing<Entity: FetchableEntity>: Sendable {
    @usableFromInline var interval: Duration = .zero
    /// What changed since the last delivery; `nil` while coalescing is off.
    @usableFromInline var held: _HeldChanges<Entity>?
    @usableFromInline var lastDelivery: ContinuousClock.Instant?
    /// When the task that waits to deliver at the end of the interval wakes, if one waits.
    @usableFromInline var scheduled: ContinuousClock.Instant?

    @inlinable init() {}

    /// What to do when the controller may deliver, at `now`.
    @usableFromInline enum Due {
        /// Nothing held, or a delivery already scheduled.
        case nothing
        /// Deliver the held changes now.
        case now
        /// Schedule a delivery at this instant (the end of the interval since the last one).
        case at(ContinuousClock.Instant)
    }

    /// Whether the held changes are due at `now`; marks a delivery scheduled when they are not.
    @inlinable mutating func due(at now: ContinuousClock.Instant) -> Due {
        guard let held, !held.isEmpty else { return .nothing }
        guard let lastDelivery, now < lastDelivery + interval else { return .now }
        guard scheduled == nil else { return .nothing }
        scheduled = lastDelivery + interval
        return .at(lastDelivery + interval)
    }

    /// Takes the held changes for a delivery at `now`; from then on, `current` is the version observers have.
    @inlinable mutating func take(
        to current: _SectionedStorage<Entity>, at now: ContinuousClock.Instant
    ) -> ChangeSet<Entity> {
        let changes = held?.changeSet(to: current) ?? ChangeSet()
        held = _HeldChanges(base: current)
        lastDelivery = now
        return changes
    }
}
