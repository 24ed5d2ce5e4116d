/// Everything a ``CollapsibleSections`` view guards with its lock: its display state, and its observers
/// with the change sets waiting for them.
@usableFromInline struct _CollapsibleView<Entity: FetchableEntity>: Sendable {
    @usableFromInline typealias Continuation = AsyncStream<ChangeSet<Entity>>.Continuation

    /// A change set waiting for delivery, with the observers that existed when it was made.
    @usableFromInline struct Delivery: Sendable {
        @usableFromInline var changes: ChangeSet<Entity>
        @usableFromInline var delegate: (any CollapsibleSectionsDelegate<Entity>)?
        @usableFromInline var continuations: [Continuation]

        @inlinable init(
            changes: ChangeSet<Entity>, delegate: (any CollapsibleSectionsDelegate<Entity>)?,
            continuations: [Continuation]
        ) {
            self.changes = changes
            self.delegate = delegate
            self.continuations = continuations
        }
    }

    /// The display state, once the view knows the results it starts from.
    @usableFromInline var state: _CollapsibleState<Entity>?
    @usableFromInline let initiallyCollapsed: @Sendable (String) -> Bool
    @usableFromInline let limit: @Sendable (String) -> SectionLimit?
    /// Controller change sets that came before the view knew where it starts: taken once it does.
    @usableFromInline var early: [(changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>)] = []
    /// Keeps the view subscribed to the controller.
    @usableFromInline var subscription: EventSubscription?

    @usableFromInline weak var delegate: (any CollapsibleSectionsDelegate<Entity>)?
    @usableFromInline var continuations: [UInt64: Continuation] = [:]
    @usableFromInline var nextContinuationID: UInt64 = 0
    @usableFromInline var pending: [Delivery] = []
    @usableFromInline var isDelivering = false

    @inlinable init(
        initiallyCollapsed: @escaping @Sendable (String) -> Bool, limit: @escaping @Sendable (String) -> SectionLimit?
    ) {
        self.initiallyCollapsed = initiallyCollapsed
        self.limit = limit
    }

    /// Starts from the controller's results `snapshot`, then takes the change sets that came meanwhile.
    @inlinable mutating func start(from snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        self.subscription = subscription
        state = _CollapsibleState(snapshot: snapshot, initiallyCollapsed: initiallyCollapsed, limit: limit)
        for (changes, snapshot) in early { take(changes, snapshot) }
        early = []
    }

    /// Takes the controller's next change set, and queues the view's.
    @inlinable mutating func take(_ changes: ChangeSet<Entity>, _ snapshot: FetchedResultsSnapshot<Entity>) {
        guard state != nil else {
            early.append((changes, snapshot))
            return
        }
        enqueue(state!.take(snapshot, changes: changes))
    }

    @inlinable mutating func enqueue(_ changes: ChangeSet<Entity>) {
        guard !changes.isEmpty, delegate != nil || !continuations.isEmpty else { return }
        pending.append(Delivery(changes: changes, delegate: delegate, continuations: Array(continuations.values)))
    }

    @inlinable mutating func add(_ continuation: Continuation) -> UInt64 {
        defer { nextContinuationID += 1 }
        continuations[nextContinuationID] = continuation
        return nextContinuationID
    }

    /// The next change set to deliver, or `nil` when there is none or another thread delivers.
    @inlinable mutating func nextDelivery(starting: Bool) -> Delivery? {
        if starting {
            guard !isDelivering else { return nil }
            isDelivering = true
        }
        guard !pending.isEmpty else {
            isDelivering = false
            return nil
        }
        return pending.removeFirst()
    }
}
