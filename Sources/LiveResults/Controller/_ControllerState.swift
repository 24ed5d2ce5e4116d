/// Everything a ``FetchedResultsController`` guards with its lock.
struct _ControllerState<Entity: FetchableEntity>: Sendable {
    typealias Continuation = AsyncStream<ChangeSet<Entity>>.Continuation

    /// A change set waiting to be delivered, with the observers that existed when it was made.
    struct Delivery: Sendable {
        var changes: ChangeSet<Entity>
        var snapshot: FetchedResultsSnapshot<Entity>
        var delegate: (any FetchedResultsControllerDelegate<Entity>)?
        var scheduler: CallbackScheduler
        var continuations: [Continuation]
    }

    var core: _ResultsCore<Entity>
    var fetchState: FetchState = .idle
    /// Whether a fetch has succeeded since the start or the last reset: only then do events apply.
    var isLive = false
    /// Incremented by every fetch and reset, so that a superseded fetch result is dropped.
    var fetchGeneration: UInt64 = 0
    /// Events received while a fetch is in flight, replayed onto its result; `nil` when none is.
    var eventsDuringFetch: [EntityEvent<Entity>]?
    var statistics = ControllerStatistics()

    /// Events from sources, waiting for the thread that drains them.
    var inbox: [EntityEvent<Entity>] = []
    var isDrainingInbox = false

    weak var delegate: (any FetchedResultsControllerDelegate<Entity>)?
    var callbackScheduler = CallbackScheduler.immediate
    var continuations: [UInt64: Continuation] = [:]
    var nextContinuationID: UInt64 = 0

    /// Change sets in mutation order, waiting for the thread that delivers them.
    var pending: [Delivery] = []
    var isDelivering = false

    /// The cache of every association used so far, by the association's identity.
    var associations: [ObjectIdentifier: _AssociationCache<Entity>] = [:]
    /// How many entities around the one read an association request covers; 0 is all of them.
    var associatedFetchSize = 10
    var associationWaiters = _AssociationWaiters<Entity.ID>()
    /// Keeps the controller subscribed to its memory-pressure source.
    var memoryPressureSubscription: EventSubscription?

    init(core: _ResultsCore<Entity>) {
        self.core = core
    }

    var snapshot: FetchedResultsSnapshot<Entity> {
        FetchedResultsSnapshot(_storage: core.storage)
    }

    /// Queues a non-empty change set for delivery to the observers registered now.
    mutating func enqueue(_ changes: ChangeSet<Entity>) {
        guard !changes.isEmpty else { return }
        pending.append(
            Delivery(
                changes: changes,
                snapshot: snapshot,
                delegate: delegate,
                scheduler: callbackScheduler,
                continuations: Array(continuations.values)
            )
        )
    }

    /// Takes the next change set to deliver, or ends the delivering turn.
    mutating func nextDelivery() -> Delivery? {
        guard !pending.isEmpty else {
            isDelivering = false
            return nil
        }
        return pending.removeFirst()
    }
}
