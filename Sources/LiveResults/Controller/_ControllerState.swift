/// Everything a ``FetchedResultsController`` guards with its lock.
@usableFromInline struct _ControllerState<Entity: FetchableEntity>: Sendable {
    /// An observer's handler: the change set, the snapshot right after it, and the version it leads to
    /// (see ``observedVersion``).
    @usableFromInline typealias ChangeObserver =
        @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void
    /// Sees each change set as it is queued for the observers, with the storage after it and where the
    /// observers' callbacks run, under the lock: for the views built on the controller, whose own state must
    /// change in the same order. It returns what to run, outside the lock, in order with the deliveries (a
    /// view's own delivery), if anything.
    @usableFromInline typealias QueueObserver =
        @Sendable (ChangeSet<Entity>, _SectionedStorage<Entity>, CallbackScheduler) -> (@Sendable () -> Void)?

    /// What waits for the delivering thread: a change set for the observers, or the action of a queue observer.
    @usableFromInline enum Pending: Sendable {
        case delivery(DeliveryRecord)
        case action(@Sendable () -> Void)
    }

    /// A ``Delivery`` in memory of its own, owned by the queue, then by the thread that delivers it, which
    /// frees it (``FetchedResultsController/deliver(_:)``).
    ///
    /// Handing it on copies a pointer: no retain of the change set's arrays or the storage's parts, and
    /// no reference count of its own. (A delivery record as a struct was copied through
    /// the generic `Pending` enum several times per change set, each copy retaining and releasing some
    /// 25 references: more than computing the change set; as a class, its deinit, generic and
    /// unspecialized, looked up its fields' metadata on every delivery.)
    ///
    /// `@unchecked Sendable`: one owner at a time, handed on under the controller's lock.
    @usableFromInline struct DeliveryRecord: @unchecked Sendable {
        @usableFromInline let pointer: UnsafeMutablePointer<Delivery>

        /// A record of `delivery`, in the memory of `spare` (a record whose delivery was taken) if there
        /// is one: an allocation and a free fewer per change set.
        @inlinable init(_ delivery: __owned Delivery, reusing spare: inout DeliveryRecord?) {
            if let spare = spare.take() {
                pointer = spare.pointer
            } else {
                pointer = .allocate(capacity: 1)
            }
            pointer.initialize(to: delivery)
        }

        /// Takes the delivery out, leaving the record's memory to reuse (``_ControllerState/recycle(_:)``)
        /// or to free (``free()``): the owner's last use of the delivery. Moved out, not copied; and read
        /// from a local value, the delivery's fields are passed on without the copies that reading them
        /// through the pointer makes (memory that a callee might change).
        @inlinable func take() -> Delivery {
            pointer.move()
        }

        /// Frees the memory of a record whose delivery was taken.
        @inlinable func free() {
            pointer.deallocate()
        }

        /// Whether only `changes` sequences receive the delivery (no handler, no delegate).
        @inlinable var isForChangeSubscribersOnly: Bool {
            pointer.pointee.observers.isEmpty && pointer.pointee.delegate == nil
        }

        /// Moves the change set and the `changes` subscriptions out and destroys the rest field by field,
        /// leaving the memory as ``take()`` does: the owner's last use of the delivery, when only `changes`
        /// sequences receive it.
        ///
        /// The change set is moved on into a subscription's buffer. A whole `Delivery` taken out and
        /// destroyed went through the compiler's outlined (and merged, so unspecialized) copy of the change
        /// set and destroy of the delivery: some 800 instructions per change set.
        @inlinable func takeChanges() -> (changes: ChangeSet<Entity>, subscribers: [_ChangeSubscriber<Entity>]) {
            let delivery = UnsafeMutableRawPointer(pointer)
            func field<Value>(_ path: KeyPath<Delivery, Value>, _: Value.Type) -> UnsafeMutablePointer<Value> {
                (delivery + MemoryLayout<Delivery>.offset(of: path).unsafelyUnwrapped).assumingMemoryBound(
                    to: Value.self)
            }
            let changes = field(\.changes, ChangeSet<Entity>.self).move()
            let subscribers = field(\.changeSubscribers, [_ChangeSubscriber<Entity>].self).move()
            // Every other field of `Delivery` is destroyed here (`version` is plain data).
            field(\.snapshot, FetchedResultsSnapshot<Entity>?.self).deinitialize(count: 1)
            field(\.delegate, (any FetchedResultsControllerDelegate<Entity>)?.self).deinitialize(count: 1)
            field(\.scheduler, CallbackScheduler.self).deinitialize(count: 1)
            field(\.observers, [ChangeObserver].self).deinitialize(count: 1)
            return (changes, subscribers)
        }
    }

    /// A change set waiting to be delivered, with the observers that existed when it was made.
    ///
    /// It allocates nothing but its record (``DeliveryRecord``): the lists of observers are the state's
    /// own arrays (shared; rebuilt only when an observer comes or goes), and the snapshot shares the storage.
    @usableFromInline struct Delivery: Sendable {
        @usableFromInline let changes: ChangeSet<Entity>
        /// The results right after the change set; `nil` when only `changes` sequences receive it, which
        /// have no use for it.
        @usableFromInline let snapshot: FetchedResultsSnapshot<Entity>?
        @usableFromInline let delegate: (any FetchedResultsControllerDelegate<Entity>)?
        @usableFromInline let scheduler: CallbackScheduler
        @usableFromInline let changeSubscribers: [_ChangeSubscriber<Entity>]
        @usableFromInline let observers: [ChangeObserver]
        /// The version the change set leads to (see ``_ControllerState/observedVersion``).
        @usableFromInline let version: UInt64

        @inlinable
        init(
            changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>?,
            delegate: (any FetchedResultsControllerDelegate<Entity>)?, scheduler: CallbackScheduler,
            changeSubscribers: [_ChangeSubscriber<Entity>], observers: [ChangeObserver], version: UInt64
        ) {
            self.changes = changes
            self.snapshot = snapshot
            self.delegate = delegate
            self.scheduler = scheduler
            self.changeSubscribers = changeSubscribers
            self.observers = observers
            self.version = version
        }
    }

    @usableFromInline var core: _ResultsCore<Entity>
    @usableFromInline var fetchState: FetchState = .idle
    /// Whether a fetch has succeeded since the start or the last reset: only then do events apply.
    @usableFromInline var isLive = false
    /// Incremented by every fetch and reset, so that a superseded fetch result is dropped.
    @usableFromInline var fetchGeneration: UInt64 = 0
    /// Events received while a fetch is in flight, replayed onto its result; `nil` when none is.
    @usableFromInline var eventsDuringFetch: [EntityEvent<Entity>]?
    @usableFromInline var statistics = ControllerStatistics()
    /// The cursors and page loads of a paginated definition (one page without cursors otherwise).
    @usableFromInline var paging = _Paging<Entity>()
    /// Where the results shown come from.
    @usableFromInline var resultsOrigin = ResultsOrigin.none
    /// The last save to the definition's cache, which the next one waits for, so that saves land in order.
    @usableFromInline var lastCacheSave: Task<Void, Never>?
    /// The first fetch that ``ResultsRegistry/fetchedController(for:make:)`` callers share, while it runs.
    @usableFromInline var sharedFirstFetch: Task<Void, any Error>?

    /// Events from sources, waiting for the thread that drains them.
    @usableFromInline var inbox: [EntityEvent<Entity>] = []
    @usableFromInline var isDrainingInbox = false

    @usableFromInline weak var delegate: (any FetchedResultsControllerDelegate<Entity>)?
    @usableFromInline var callbackScheduler = CallbackScheduler.immediate
    /// The subscriptions of ``FetchedResultsController/changes``.
    @usableFromInline var changeSubscribers: [UInt64: _ChangeSubscriber<Entity>] = [:] {
        didSet { changeSubscriberList = changeSubscribers.sorted { $0.key < $1.key }.map(\.value) }
    }
    /// The handlers of ``FetchedResultsController/observeChanges(_:)``, under the same ids as `changeSubscribers`.
    @usableFromInline var observers: [UInt64: ChangeObserver] = [:] {
        didSet { observerList = observers.sorted { $0.key < $1.key }.map(\.value) }
    }
    /// `changeSubscribers` and `observers` in the order they subscribed, as the arrays each delivery shares.
    @usableFromInline var changeSubscriberList: [_ChangeSubscriber<Entity>] = []
    @usableFromInline var observerList: [ChangeObserver] = []
    /// The number of change sets queued for the observers so far: the version of ``observedStorage``,
    /// which each delivery names, so that an observer that reads the results directly (``ObservableResults``)
    /// knows which deliveries it has already shown. The same count numbers the versions of the update
    /// streams (``_UpdateFeed/sequence``).
    @inlinable var observedVersion: UInt64 { updates.sequence }
    @usableFromInline var queueObservers: [UInt64: QueueObserver] = [:]
    @usableFromInline var nextContinuationID: UInt64 = 0
    /// The versions of the results and the update streams (see ``FetchedResultsController/updates(since:bufferLimit:)``).
    @usableFromInline var updates = _UpdateFeed<Entity>()

    /// Change sets in mutation order, waiting for the thread that delivers them, in `pending[pendingHead..<pendingEnd]`.
    /// They are taken from `pendingHead` on, so taking one costs O(1) however long the backlog behind a
    /// slow observer; the slots taken are empty and are reused once the queue is drained, so that the
    /// array is neither emptied nor grown on every change.
    @usableFromInline var pending: [Pending?] = []
    /// The memory of the last delivery record delivered, for the next one (see ``recycle(_:)``).
    @usableFromInline var spareRecord: DeliveryRecord?
    @usableFromInline var pendingHead = 0
    @usableFromInline var pendingEnd = 0
    @usableFromInline var isDelivering = false

    /// The cache of every association used so far, by the association's identity.
    @usableFromInline var associations: [ObjectIdentifier: _AssociationCache<Entity>] = [:]
    /// How many entities around the one read an association request covers; 0 is all of them.
    @usableFromInline var associatedFetchSize = 10
    @usableFromInline var associationWaiters = _AssociationWaiters<Entity.ID>()
    /// Keeps the controller subscribed to its memory-pressure source.
    @usableFromInline var memoryPressureSubscription: EventSubscription?

    /// What changed since `pause()`, held back from the observers; `nil` when not paused.
    @usableFromInline var paused: _HeldChanges<Entity>? {
        didSet { holdsChanges = paused != nil || coalescing.held != nil }
    }
    @usableFromInline var coalescing = _Coalescing<Entity>() {
        didSet { holdsChanges = paused != nil || coalescing.held != nil }
    }
    /// Whether a pause or coalescing holds change sets back: a flag, so that a change that is delivered
    /// as it happens (most of them) does not look into the two optional values.
    @usableFromInline var holdsChanges = false

    @inlinable init(core: _ResultsCore<Entity>) {
        self.core = core
    }

    @inlinable var snapshot: FetchedResultsSnapshot<Entity> {
        FetchedResultsSnapshot(_storage: core.storage)
    }

    /// Whether a fetch is in flight.
    @inlinable var isFetching: Bool { eventsDuringFetch != nil }

    /// Whether a change set waits for delivery.
    @inlinable var hasPendingDeliveries: Bool { pendingHead < pendingEnd }

    /// Queues a delivery or an action after those waiting.
    @inlinable mutating func appendPending(_ item: Pending) {
        if pendingEnd < pending.count {
            pending[pendingEnd] = item
        } else {
            pending.append(item)
        }
        pendingEnd += 1
    }

    /// Starts a delivering turn on this thread if none is under way and something waits: the first
    /// thing to deliver, which the caller delivers after releasing the lock, then the rest (see
    /// ``FetchedResultsController/deliverPending(startingWith:)``).
    @inlinable mutating func startDelivering() -> Pending? {
        guard !isDelivering, hasPendingDeliveries else { return nil }
        isDelivering = true
        return nextDelivery()
    }

    /// Queues a non-empty change set for delivery to the observers registered now, if there are any, or
    /// holds it back while paused or coalescing.
    @inlinable mutating func enqueue(_ changes: ChangeSet<Entity>, _ kind: _HeldChanges<Entity>.Kind = .events) {
        guard !changes.isEmpty else { return }
        guard holdsChanges else { return appendDelivery(changes, rebuilt: kind == .rebuild) }
        if paused != nil {
            paused!.hold(changes, kind)
        } else {
            coalescing.held!.hold(changes, kind)
        }
    }

    /// Takes everything that waits, leaving the queue empty: for the controller's deinit.
    @inlinable mutating func takeUndelivered() -> [Pending] {
        defer { (pending, pendingHead, pendingEnd) = ([], 0, 0) }
        return pending[pendingHead..<pendingEnd].compactMap { $0 }
    }

    /// Keeps the memory of a delivered record for the next delivery, or frees it if one is kept already.
    @inlinable mutating func recycle(_ record: DeliveryRecord) {
        if spareRecord == nil {
            spareRecord = record
        } else {
            record.free()
        }
    }

    /// Takes the next change set to deliver, or ends the delivering turn.
    @inlinable mutating func nextDelivery() -> Pending? {
        guard hasPendingDeliveries else {
            isDelivering = false
            // Every slot was taken: they are reused from the start.
            (pendingHead, pendingEnd) = (0, 0)
            if pending.count > 1024 { pending = [] }
            return nil
        }
        defer { pendingHead += 1 }
        return pending[pendingHead].take()
    }
}
