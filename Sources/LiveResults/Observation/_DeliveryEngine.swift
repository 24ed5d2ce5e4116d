/// The one delivery engine of live results: the observers of one kind of results (a controller, a window, a
/// collapsible view, a replica) and the ordered queue of what waits to reach them.
///
/// A value, held under its owner's lock. Mutations queue a ``Delivery`` (change set, results right after it,
/// observers at that moment, the version it leads to) under that lock, or an action to run in order with the
/// deliveries; the owner then drains the queue outside the lock, one thread at a time
/// (``_DeliveryHost/_deliverPending(startingWith:)``), so callbacks may re-enter and every observer sees every
/// change set once, in order. `changes` sequences receive each change set at once; handlers, then the
/// delegate, where the ``CallbackScheduler`` says.
///
/// A controller and its windows share the controller's queue (a window keeps only its ``Subscribers``); a
/// collapsible view and a replica each have an engine of their own. `Delegate` is the owner's delegate type
/// (`Never` for none), called through ``_DeliveryHost/_callDelegate(_:with:snapshot:)``.
@usableFromInline struct _DeliveryEngine<Entity: FetchableEntity, Delegate: Sendable>: Sendable {
    /// A handler of `observeChanges`: the change set, the results right after it, and the version it leads to.
    @usableFromInline typealias Observer = @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>, UInt64) -> Void

    /// The observers of one kind of results: its `changes` sequences and its handlers, each in the order they
    /// subscribed.
    @usableFromInline struct Subscribers: Sendable {
        /// The subscriptions of `changes`.
        @usableFromInline var changeSubscribers: [UInt64: _ChangeSubscriber<Entity>] = [:] {
            didSet { changeSubscriberList = changeSubscribers.sorted { $0.key < $1.key }.map(\.value) }
        }
        /// The handlers of `observeChanges`.
        @usableFromInline var observers: [UInt64: Observer] = [:] {
            didSet { observerList = observers.sorted { $0.key < $1.key }.map(\.value) }
        }
        /// `changeSubscribers` and `observers` in the order they subscribed: the arrays each delivery shares
        /// (rebuilt only when an observer comes or goes, not per change set).
        @usableFromInline var changeSubscriberList: [_ChangeSubscriber<Entity>] = []
        @usableFromInline var observerList: [Observer] = []
        @usableFromInline var nextID: UInt64 = 0

        @inlinable init() {}

        /// Whether no sequence and no handler observe.
        @inlinable var isEmpty: Bool { changeSubscriberList.isEmpty && observerList.isEmpty }

        /// Registers a `changes` subscription.
        ///
        /// - Returns: Its id, for ``remove(subscriber:)``.
        @inlinable mutating func add(_ subscriber: _ChangeSubscriber<Entity>) -> UInt64 {
            defer { nextID += 1 }
            changeSubscribers[nextID] = subscriber
            return nextID
        }

        /// Registers a handler, which is not called once `cancelled` is set.
        ///
        /// - Returns: Its id, for ``remove(observer:)``.
        @inlinable mutating func add(_ observer: @escaping Observer, cancelled: _CancellationFlag) -> UInt64 {
            defer { nextID += 1 }
            observers[nextID] = { changes, snapshot, version in
                if !cancelled.isSet { observer(changes, snapshot, version) }
            }
            return nextID
        }

        /// Removes a `changes` subscription.
        ///
        /// - Returns: The subscription and the list it was in, for the caller to release once it has left the
        ///   owner's lock: the last reference to a subscription may finish its sequence, whose termination
        ///   handler can come back to that lock.
        @inlinable mutating func remove(
            subscriber id: UInt64
        ) -> (_ChangeSubscriber<Entity>?, [_ChangeSubscriber<Entity>]) {
            let list = changeSubscriberList
            return (changeSubscribers.removeValue(forKey: id), list)
        }

        /// Removes a handler.
        ///
        /// - Returns: The handler and the list it was in, for the caller to release once it has left the owner's
        ///   lock: a handler's captures may be the last references to objects (a view, a model observing the same
        ///   results) whose deinit cancels their own subscriptions, which takes that lock again.
        @inlinable mutating func remove(observer id: UInt64) -> (Observer?, [Observer]) {
            let list = observerList
            return (observers.removeValue(forKey: id), list)
        }

        /// The delivery of `changes` to the observers registered now and `delegate`, or `nil` when nothing
        /// would receive it.
        ///
        /// - Parameters:
        ///   - snapshot: The results right after the change set; read only when a handler (or a delegate
        ///     that takes it) receives it.
        ///   - delegateTakesSnapshot: Whether the delegate's callbacks receive the results.
        @inlinable func delivery(
            _ changes: ChangeSet<Entity>, after snapshot: () -> FetchedResultsSnapshot<Entity>, delegate: Delegate?,
            delegateTakesSnapshot: Bool = true, scheduler: CallbackScheduler, version: UInt64
        ) -> Delivery? {
            let takesSnapshot = !observerList.isEmpty || (delegateTakesSnapshot && delegate != nil)
            guard takesSnapshot || delegate != nil || !changeSubscriberList.isEmpty else { return nil }
            return Delivery(
                changes: changes, snapshot: takesSnapshot ? snapshot() : nil, delegate: delegate, scheduler: scheduler,
                changeSubscribers: changeSubscriberList, observers: observerList, version: version)
        }
    }

    /// What waits for the delivering thread: a change set for the observers, or an action to run in order
    /// with them (a view's own delivery).
    @usableFromInline enum Pending: Sendable {
        case delivery(DeliveryRecord)
        case action(@Sendable () -> Void)
    }

    /// A ``Delivery`` in memory of its own, owned by the queue, then by the thread that delivers it, which
    /// frees it (``_DeliveryHost/_deliver(_:)-(DeliveryRecord)``).
    ///
    /// Handing it on copies a pointer: no retain of the change set's arrays or the storage's parts, and
    /// no reference count of its own. (A delivery record as a struct was copied through
    /// the generic `Pending` enum several times per change set, each copy retaining and releasing some
    /// 25 references: more than computing the change set; as a class, its deinit, generic and
    /// unspecialized, looked up its fields' metadata on every delivery.)
    ///
    /// `@unchecked Sendable`: one owner at a time, handed on under the owner's lock.
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

        /// Takes the delivery out, leaving the record's memory to reuse (``_DeliveryEngine/recycle(_:)``)
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
            // Every other field of `Delivery` is destroyed here (`version` is plain data). A field added to
            // `Delivery` must be added here and to `fieldsTakenApart`, or a test fails: left out, it leaks.
            field(\.snapshot, FetchedResultsSnapshot<Entity>?.self).deinitialize(count: 1)
            field(\.delegate, Delegate?.self).deinitialize(count: 1)
            field(\.scheduler, CallbackScheduler.self).deinitialize(count: 1)
            field(\.observers, [Observer].self).deinitialize(count: 1)
            return (changes, subscribers)
        }

        /// The fields of ``Delivery`` that ``takeChanges()`` moves out or destroys, in their order of
        /// declaration: a test compares them with the fields a `Delivery` has, so that a field added without
        /// being handled there fails it instead of leaking on every delivery to `changes` sequences alone.
        @usableFromInline static var fieldsTakenApart: [String] {
            ["changes", "snapshot", "delegate", "scheduler", "changeSubscribers", "observers", "version"]
        }
    }

    /// A change set waiting to be delivered, with the observers that existed when it was made.
    ///
    /// It allocates nothing but its record (``DeliveryRecord``): the lists of observers are the
    /// ``Subscribers``' own arrays (shared), and the snapshot shares the storage.
    @usableFromInline struct Delivery: Sendable {
        // `let`: with `var` fields, the compiler made each delivery in a temporary, copied it into its slot
        // and destroyed the temporary.
        @usableFromInline let changes: ChangeSet<Entity>
        /// The results right after the change set; `nil` when only `changes` sequences (or a delegate that
        /// does not take it) receive it.
        @usableFromInline let snapshot: FetchedResultsSnapshot<Entity>?
        @usableFromInline let delegate: Delegate?
        @usableFromInline let scheduler: CallbackScheduler
        @usableFromInline let changeSubscribers: [_ChangeSubscriber<Entity>]
        @usableFromInline let observers: [Observer]
        /// The version the change set leads to.
        @usableFromInline let version: UInt64

        @inlinable
        init(
            changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>?, delegate: Delegate?,
            scheduler: CallbackScheduler, changeSubscribers: [_ChangeSubscriber<Entity>], observers: [Observer],
            version: UInt64
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

    /// Everything a closed owner hands over in its deinit: what no one will deliver now, and the sequences
    /// to finish.
    @usableFromInline struct Remains: Sendable {
        @usableFromInline let changeSubscribers: [_ChangeSubscriber<Entity>]
        @usableFromInline let undelivered: [Pending]
        @usableFromInline let spareRecord: DeliveryRecord?

        @inlinable init(
            changeSubscribers: [_ChangeSubscriber<Entity>], undelivered: [Pending], spareRecord: DeliveryRecord?
        ) {
            self.changeSubscribers = changeSubscribers
            self.undelivered = undelivered
            self.spareRecord = spareRecord
        }

        /// Frees the deliveries left, and ends every `changes` sequence after what it buffered, so that
        /// `for await` loops over them finish. Outside the owner's lock.
        @inlinable func finish() {
            for case .delivery(let record) in undelivered {
                _ = record.take()
                record.free()
            }
            spareRecord?.free()
            for subscriber in changeSubscribers { subscriber.finish() }
        }
    }

    /// The observers.
    @usableFromInline var subscribers = Subscribers()
    /// The number of change sets queued so far, for owners that count no versions of their own (a
    /// collapsible view, a replica): the version each of their deliveries leads to.
    @usableFromInline var version: UInt64 = 0

    /// Change sets in order, waiting for the thread that delivers them, in `pending[pendingHead..<pendingEnd]`.
    /// They are taken from `pendingHead` on, so taking one costs O(1) however long the backlog behind a
    /// slow observer; the slots taken are empty and are reused once the queue is drained, so that the
    /// array is neither emptied nor grown on every change.
    @usableFromInline var pending: [Pending?] = []
    /// The memory of the last delivery record delivered, for the next one (see ``recycle(_:)``).
    @usableFromInline var spareRecord: DeliveryRecord?
    @usableFromInline var pendingHead = 0
    @usableFromInline var pendingEnd = 0
    @usableFromInline var isDelivering = false

    @inlinable init() {}

    /// Whether something waits for delivery.
    @inlinable var hasPendingDeliveries: Bool { pendingHead < pendingEnd }

    /// Queues a delivery or an action after those waiting.
    @inlinable mutating func appendPending(_ item: __owned Pending) {
        if pendingEnd < pending.count {
            pending[pendingEnd] = item
        } else {
            pending.append(item)
        }
        pendingEnd += 1
    }

    /// Queues `delivery` in a record (reusing the spare one's memory).
    @inlinable mutating func append(_ delivery: __owned Delivery) {
        appendPending(.delivery(DeliveryRecord(delivery, reusing: &spareRecord)))
    }

    /// Counts a change set of an owner without versions of its own (``version``) and queues it for the
    /// observers registered now and `delegate`, if anything receives it.
    ///
    /// - Returns: Whether it queued a delivery.
    @discardableResult
    @inlinable mutating func enqueue(
        _ changes: consuming ChangeSet<Entity>, after snapshot: () -> FetchedResultsSnapshot<Entity>,
        delegate: Delegate?, delegateTakesSnapshot: Bool = true, scheduler: CallbackScheduler
    ) -> Bool {
        guard !changes.isEmpty else { return false }
        version += 1
        let takesSnapshot = !subscribers.observerList.isEmpty || (delegateTakesSnapshot && delegate != nil)
        guard takesSnapshot || delegate != nil || !subscribers.changeSubscriberList.isEmpty else { return false }
        // Made in its record: a delivery made by ``Subscribers/delivery(_:after:delegate:delegateTakesSnapshot:scheduler:version:)``,
        // returned and then stored, was copied and destroyed (a few thousand instructions per change set).
        let record = DeliveryRecord(
            Delivery(
                changes: consume changes, snapshot: takesSnapshot ? snapshot() : nil, delegate: delegate,
                scheduler: scheduler, changeSubscribers: subscribers.changeSubscriberList,
                observers: subscribers.observerList, version: version),
            reusing: &spareRecord)
        appendPending(.delivery(record))
        return true
    }

    /// Starts a delivering turn on this thread if none is under way and something waits: the first
    /// thing to deliver, which the caller delivers after releasing the lock, then the rest (see
    /// ``_DeliveryHost/_deliverPending(startingWith:)``).
    @inlinable mutating func startDelivering() -> Pending? {
        guard !isDelivering, hasPendingDeliveries else { return nil }
        isDelivering = true
        return nextDelivery()
    }

    /// Takes the next thing to deliver, or ends the delivering turn.
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

    /// Keeps the memory of a delivered record for the next delivery, or frees it if one is kept already.
    @inlinable mutating func recycle(_ record: DeliveryRecord) {
        if spareRecord == nil {
            spareRecord = record
        } else {
            record.free()
        }
    }

    /// Takes everything the engine holds, leaving it empty: for the owner's deinit, which calls
    /// ``Remains/finish()`` outside its lock.
    @inlinable mutating func close() -> Remains {
        defer { (pending, pendingHead, pendingEnd) = ([], 0, 0) }
        return Remains(
            changeSubscribers: subscribers.changeSubscriberList,
            undelivered: pending[pendingHead..<pendingEnd].compactMap { $0 }, spareRecord: spareRecord.take())
    }
}
