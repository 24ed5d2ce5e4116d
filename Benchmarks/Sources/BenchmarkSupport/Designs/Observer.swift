import LiveResults

/// One observer of a controller, of each kind users attach: what observing a controller costs per event.
public enum ObserverKind: String, CaseIterable, Sendable {
    /// A delegate that implements every callback, the per-item ones included.
    case delegate
    /// A `changes` sequence, read after the measurement (its buffer holds the change sets until then).
    case changes
    /// An `observeChanges` handler.
    case observeChanges

    /// How the report names it.
    public var label: String {
        switch self {
        case .delegate: "a delegate with per-item callbacks"
        case .changes: "a `changes` sequence"
        case .observeChanges: "an `observeChanges` handler"
        }
    }
}

/// An observer of one kind attached to a controller, until it is released.
@MainActor public final class AttachedObserver {
    public let kind: ObserverKind
    private let delegate = CountingDelegate()
    private var iterator: ResultsChanges<Row>.Iterator?
    private var subscription: EventSubscription?
    /// The change sets the `changes` sequence holds and `drain()` has not read yet.
    private var unread = 0

    public init(_ kind: ObserverKind, of controller: FetchedResultsController<Row>) {
        self.kind = kind
        switch kind {
        case .delegate: controller.delegate = delegate
        case .changes: iterator = controller.changes.makeAsyncIterator()
        case .observeChanges:
            let delegate = delegate
            subscription =
                controller.observeChanges { changes, snapshot in
                    delegate.count(changes.insertedItems.count &+ snapshot.count)
                }.subscription
        }
    }

    /// Records that `count` more change sets were delivered (for a `changes` sequence, to read later).
    public func delivered(_ count: Int) {
        unread &+= count
    }

    /// Reads the change sets the `changes` sequence holds, outside the measurement.
    public func drain() async {
        guard var iterator else { return }
        for _ in 0..<unread { _ = await iterator.next(isolation: MainActor.shared) }
        unread = 0
        self.iterator = iterator
    }
}

/// A delegate that implements every callback and counts what it receives: the per-item callbacks are
/// called one by one, as a table view's delegate has them called.
public final class CountingDelegate: FetchedResultsControllerDelegate, @unchecked Sendable {
    /// Callbacks run one at a time (the controller's guarantee), so the plain counter is not raced.
    private var received = 0

    public init() {}

    /// What it received.
    public var total: Int { received }

    func count(_ value: Int) {
        received &+= value
    }

    public func controllerWillChangeContent(_ controller: FetchedResultsController<Row>) {
        received &+= 1
    }

    public func controller(_ controller: FetchedResultsController<Row>, didChange section: SectionChange) {
        received &+= 1
    }

    public func controller(_ controller: FetchedResultsController<Row>, didChange item: ItemChange<Row>) {
        received &+= item.id
    }

    public func controller(
        _ controller: FetchedResultsController<Row>, didChangeContentWith changes: ChangeSet<Row>,
        snapshot: FetchedResultsSnapshot<Row>
    ) {
        received &+= snapshot.count
    }
}
