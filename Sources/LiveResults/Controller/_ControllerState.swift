/// Everything a ``FetchedResultsController`` guards with its lock.
@usableFromInline struct _ControllerState<Entity: FetchableEntity>: Sendable {
    /// An observer's handler: the change set, the snapshot right after it, and the version it leads to
    /// (see ``observedVersion``).
    @usableFromInline typealias ChangeObserver = Engine.Observer
    /// Sees each change set as it is queued for the observers, with the storage after it, the number of rebuilds
    /// of the storage so far (``_ResultsCore/rebuilds``) and where the observers' callbacks run, under the lock:
    /// for the views built on the controller, whose own state must change in the same order. It returns what to
    /// run, outside the lock, in order with the deliveries (a view's own delivery), if anything.
    @usableFromInline typealias QueueObserver =
        @Sendable (ChangeSet<Entity>, _SectionedStorage<Entity>, UInt64, CallbackScheduler) -> (
            @Sendable () -> Void
        )?

    /// The controller's delivery engine: its observers and its queue, which also carries its windows'
    /// deliveries.
    @usableFromInline typealias Engine = _DeliveryEngine<Entity, any FetchedResultsControllerDelegate<Entity>>
    @usableFromInline typealias Pending = Engine.Pending
    @usableFromInline typealias Delivery = Engine.Delivery

    @usableFromInline var core: _ResultsCore<Entity>
    /// Where the controller is in its fetch cycle.
    @usableFromInline var fetchCycle = _FetchCycle<Entity>()
    @usableFromInline var statistics = ControllerStatistics()
    /// The cursors and page loads of a paginated definition (one page without cursors otherwise).
    @usableFromInline var paging = _Paging<Entity>()
    /// Events from sources, waiting for the thread that drains them.
    @usableFromInline var inbox = _EventInbox<Entity>()

    @usableFromInline weak var delegate: (any FetchedResultsControllerDelegate<Entity>)?
    @usableFromInline var callbackScheduler = CallbackScheduler.immediate
    /// The observers of ``FetchedResultsController/changes`` and ``FetchedResultsController/observeChanges(_:)``,
    /// and the change sets and actions waiting for the thread that delivers them.
    @usableFromInline var engine = Engine()
    /// The number of change sets queued for the observers so far: the version of ``observedStorage``,
    /// which each delivery names, so that an observer that reads the results directly (``ObservableResults``)
    /// knows which deliveries it has already shown. The same count numbers the versions of the update
    /// streams (``_UpdateFeed/sequence``).
    @inlinable var observedVersion: UInt64 { updates.sequence }
    /// The views built on the controller (windows, collapsible sections), which see each change set as it is
    /// queued: by the id ``FetchedResultsController/_addQueueObserver(_:)`` gave each.
    @usableFromInline var queueObservers: [UInt64: QueueObserver] = [:]
    /// The id of the next queue observer.
    @usableFromInline var nextQueueObserverID: UInt64 = 0
    /// The versions of the results and the update streams (see ``FetchedResultsController/updates(since:bufferLimit:)``).
    @usableFromInline var updates = _UpdateFeed<Entity>()

    /// The association caches and the tasks waiting for their values.
    @usableFromInline var associations = _AssociationState<Entity>()

    /// What changed since `pause()`, held back from the observers; `nil` when not paused.
    @usableFromInline var paused: _HeldChanges<Entity>? {
        didSet { holdsChanges = paused != nil || coalescing.isOn }
    }
    @usableFromInline var coalescing = _Coalescing<Entity>() {
        didSet { holdsChanges = paused != nil || coalescing.isOn }
    }
    /// Whether a pause or coalescing holds change sets back: a flag, so that a change that is delivered
    /// as it happens (most of them) does not look into the two optional values.
    @usableFromInline var holdsChanges = false
    /// The clock that coalescing reads and sleeps on, and polling ticks on.
    @usableFromInline var clock = _ControllerClock.continuous

    @inlinable init(core: _ResultsCore<Entity>) {
        self.core = core
    }

    @inlinable var snapshot: FetchedResultsSnapshot<Entity> {
        FetchedResultsSnapshot(_storage: core.storage)
    }

    /// Queues a non-empty change set for delivery to the observers registered now, if there are any, or
    /// holds it back while paused or coalescing.
    @inlinable mutating func enqueue(_ changes: ChangeSet<Entity>, _ kind: _HeldChanges<Entity>.Kind = .events) {
        guard !changes.isEmpty else { return }
        guard holdsChanges else { return appendDelivery(changes, rebuilt: kind == .rebuild) }
        if paused != nil {
            paused!.hold(changes, kind)
        } else {
            coalescing.hold(changes, kind)
        }
    }
}
