import Observation

/// Live results as an `@Observable` model on the main actor: what a SwiftUI view holds in `@State`, and what
/// `withObservationTracking` follows everywhere.
///
/// It follows any ``LiveResultsProtocol``: a controller, a ``LiveWindow``, a ``CollapsibleSections`` view or
/// a ``ResultsReplica``. It fetches once with ``fetchIfNeeded()`` (through the ``controller`` behind the
/// results, if there is one) and then follows the results: after each change set delivered to their
/// observers, it updates ``snapshot``, ``lastChanges``, ``state``, ``resultsOrigin`` and ``isPaused``
/// together on the main actor, so observers see one change per change set.
///
/// ```swift
/// @MainActor let model = ObservableResults(controller)
/// await model.fetchIfNeeded()       // the fetched results are shown when it returns
/// for section in model.sections { print(section.name, section.numberOfObjects) }
///
/// let top = ObservableResults(controller.window(.first(50)))   // a window, as a model
/// let remote = ObservableResults(replica)                      // results kept elsewhere
/// ```
///
/// The model knows which results each change set leads to, so it shows each one once and in order,
/// whichever shows it first: its own ``fetchIfNeeded()`` and ``resume()``, which show their results
/// before they return, or the turn of the main actor that each delivery schedules (a change made
/// through the controller directly, a fetch included, shows there).
///
/// It observes the results as ``LiveResultsProtocol/observeChanges(_:)`` does, so their delegate stays
/// yours. It runs on the main actor, which on Linux runs only while the
/// program drains the main queue (an async `main`, `dispatchMain()` or a run loop).
@MainActor @Observable
public final class ObservableResults<Entity: FetchableEntity> {
    /// The live results it follows.
    @ObservationIgnored public let results: any LiveResultsProtocol<Entity>
    /// The controller behind ``results``: the controller itself, a window's or a collapsible view's; `nil`
    /// for a replica. ``fetchIfNeeded()``, ``pause()`` and ``resume()`` act on it, and ``state``,
    /// ``resultsOrigin`` and ``isPaused`` are its own.
    ///
    /// Implicitly unwrapped, so that code written when a model always had a controller still reads
    /// `model.controller.snapshot`; check it for `nil` when the model may follow a replica.
    @ObservationIgnored public let controller: FetchedResultsController<Entity>!
    /// The results after the last change set it received.
    public private(set) var snapshot: FetchedResultsSnapshot<Entity>
    /// The controller's fetch state, as of the last change set or fetch; `.idle` without a controller.
    public private(set) var state: FetchState
    /// The last change set it received: the one that turned the previous ``snapshot`` into this one.
    public private(set) var lastChanges: ChangeSet<Entity>?
    /// Whether the controller is paused (see ``pause()``).
    public private(set) var isPaused: Bool
    /// Where the results shown come from, as of the last change set or fetch: saved results while a
    /// `.thenFetch` refresh runs, say (see ``FetchedResultsController/resultsOrigin``).
    public private(set) var resultsOrigin: ResultsOrigin
    /// The version of ``snapshot``: the number of change sets the results had queued for their observers
    /// when it was the results they had. A delivery for this version or an earlier one is shown.
    @ObservationIgnored private var version: UInt64
    /// The one fetch of ``fetchIfNeeded()``, which every caller awaits.
    @ObservationIgnored private var fetch: Task<Void, Never>?
    @ObservationIgnored private let inbox: _ObservedInbox<Entity>
    /// Ends the observation of the controller when the model goes.
    @ObservationIgnored private let subscription: EventSubscription

    /// Follows `results` from their current state on: a controller (`ObservableResults(controller)`), a
    /// window, a collapsible view or a replica.
    ///
    /// - Complexity: As subscribing to the results (O(1) for a controller or a replica, O(log *n*) for a
    ///   window, O(*s* log *n*) for a collapsible view of *s* sections).
    public init(_ results: some LiveResultsProtocol<Entity>) {
        self.results = results
        let controller = results._controller
        self.controller = controller
        let inbox = _ObservedInbox<Entity>()
        let (start, version, observation) = results._observeVersionedChangesIfCounted { changes, snapshot, version in
            inbox.receive(changes, snapshot, version)
        }
        self.inbox = inbox
        snapshot = start
        self.version = version
        state = controller?.state ?? .idle
        isPaused = controller?.isPaused ?? false
        resultsOrigin = controller?.resultsOrigin ?? .none
        subscription = EventSubscription { observation.cancel() }
        inbox.setShow { [weak self] in self?.catchUp() }
    }

    /// The sections of ``snapshot``.
    public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// All entities of ``snapshot`` in display order.
    public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// Fetches with the ``controller`` the first time it is called, and shows the results before it returns;
    /// a call while that fetch runs waits for it, and later calls only show what the controller has. A
    /// failure shows in ``state`` as ``FetchState/failed(_:)``, not as an error.
    ///
    /// When it returns, ``snapshot`` holds the fetched results and ``lastChanges`` the fetch's change
    /// set (or, if other change sets came after the fetch, the last of them).
    ///
    /// Without a controller (a replica), it only shows what the results have.
    ///
    /// - Complexity: The first call, as ``FetchedResultsController/performFetch()``; later calls, O(1) per
    ///   change set not shown yet.
    public func fetchIfNeeded() async {
        if fetch == nil, let controller {
            state = .loading
            fetch = Task { _ = try? await controller.performFetch() }
        }
        await fetch?.value
        catchUp()
    }

    /// Pauses the controller (see ``FetchedResultsController/pause()``); without one, does nothing.
    ///
    /// - Complexity: As ``FetchedResultsController/pause()``.
    public func pause() {
        controller?.pause()
        catchUp()
    }

    /// Resumes the controller, and shows its catch-up change set before it returns (see
    /// ``FetchedResultsController/resume()``); without one, does nothing.
    ///
    /// - Complexity: As ``FetchedResultsController/resume()``.
    public func resume() {
        controller?.resume()
        catchUp()
    }

    /// Shows, in order, the change sets delivered and not shown yet, then what the controller's
    /// observers have, if no delivery brought it yet.
    ///
    /// - Complexity: O(1) per change set delivered; when the controller queued change sets that have not
    ///   reached the model yet, O(*n*) to tell what changed.
    private func catchUp() {
        for delivery in inbox.take() where delivery.version > version {
            show(delivery.snapshot, after: delivery.changes, version: delivery.version)
        }
        // The controller's state, and its results with their version, at one moment when the results are
        // the controller's.
        let around = controller?._observedResults()
        let observed =
            if let around, results === controller as AnyObject? {
                (snapshot: around.snapshot, version: around.version)
            } else {
                results._versionedSnapshotIfCounted()
            }
        if observed.version > version {
            let changes = _SnapshotDiff.changeSet(from: snapshot, to: observed.snapshot)
            show(observed.snapshot, after: changes, version: observed.version)
        }
        guard let around else { return }
        // Set only when they differ, so that a turn that finds nothing new is no observable change.
        if !Self.isSame(state, around.state) { state = around.state }
        if resultsOrigin != around.origin { resultsOrigin = around.origin }
        if isPaused != around.isPaused { isPaused = around.isPaused }
    }

    /// Whether two fetch states are the same (two failures never are: errors do not compare).
    private static func isSame(_ lhs: FetchState, _ rhs: FetchState) -> Bool {
        switch (lhs, rhs) {
        case (.idle, .idle), (.loading, .loading), (.loaded, .loaded): true
        default: false
        }
    }

    private func show(_ snapshot: FetchedResultsSnapshot<Entity>, after changes: ChangeSet<Entity>, version: UInt64) {
        self.snapshot = snapshot
        lastChanges = changes
        self.version = version
    }
}
