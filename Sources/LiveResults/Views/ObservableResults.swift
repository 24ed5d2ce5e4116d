import Observation

/// The results of a controller as an `@Observable` model on the main actor: what a SwiftUI view holds in
/// `@State`, and what `withObservationTracking` follows everywhere.
///
/// It fetches once with ``fetchIfNeeded()`` and then follows the controller: after each change set
/// delivered to the controller's observers, it updates ``snapshot``, ``lastChanges``, ``state``,
/// ``resultsOrigin`` and ``isPaused`` together on the main actor, so observers see one change per change set.
///
/// ```swift
/// @MainActor let model = ObservableResults(controller)
/// await model.fetchIfNeeded()       // the fetched results are shown when it returns
/// for section in model.sections { print(section.name, section.numberOfObjects) }
/// ```
///
/// The model knows which results each change set leads to, so it shows each one once and in order,
/// whichever shows it first: its own ``fetchIfNeeded()`` and ``resume()``, which show their results
/// before they return, or the turn of the main actor that each delivery schedules (a change made
/// through the controller directly, a fetch included, shows there).
///
/// It observes the controller through ``FetchedResultsController/observeChanges(_:)``, so the
/// controller's delegate stays yours. It runs on the main actor, which on Linux runs only while the
/// program drains the main queue (an async `main`, `dispatchMain()` or a run loop).
@MainActor @Observable
public final class ObservableResults<Entity: FetchableEntity> {
    /// The controller it follows.
    @ObservationIgnored public let controller: FetchedResultsController<Entity>
    /// The results after the last change set it received.
    public private(set) var snapshot: FetchedResultsSnapshot<Entity>
    /// The controller's fetch state, as of the last change set or fetch.
    public private(set) var state: FetchState
    /// The last change set it received: the one that turned the previous ``snapshot`` into this one.
    public private(set) var lastChanges: ChangeSet<Entity>?
    /// Whether the controller is paused (see ``pause()``).
    public private(set) var isPaused: Bool
    /// Where the results shown come from, as of the last change set or fetch: saved results while a
    /// `.thenFetch` refresh runs, say (see ``FetchedResultsController/resultsOrigin``).
    public private(set) var resultsOrigin: ResultsOrigin
    /// The version of ``snapshot``: the number of change sets the controller had queued for its
    /// observers when it was the results they had. A delivery for this version or an earlier one is shown.
    @ObservationIgnored private var version: UInt64
    /// The one fetch of ``fetchIfNeeded()``, which every caller awaits.
    @ObservationIgnored private var fetch: Task<Void, Never>?
    @ObservationIgnored private let inbox: _ObservedInbox<Entity>
    /// Ends the observation of the controller when the model goes.
    @ObservationIgnored private let subscription: EventSubscription

    /// Follows `controller` from its current results on.
    public init(_ controller: FetchedResultsController<Entity>) {
        self.controller = controller
        let inbox = _ObservedInbox<Entity>()
        let (start, version, observation) = controller._observeChanges { changes, snapshot, version in
            inbox.receive(changes, snapshot, version)
        }
        self.inbox = inbox
        snapshot = start
        self.version = version
        state = controller.state
        isPaused = controller.isPaused
        resultsOrigin = controller.resultsOrigin
        subscription = EventSubscription { observation.cancel() }
        inbox.setShow { [weak self] in self?.catchUp() }
    }

    /// The sections of ``snapshot``.
    public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// All entities of ``snapshot`` in display order.
    public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// Fetches with the controller the first time it is called, and shows the results before it returns;
    /// a call while that fetch runs waits for it, and later calls only show what the controller has. A
    /// failure shows in ``state`` as ``FetchState/failed(_:)``, not as an error.
    ///
    /// When it returns, ``snapshot`` holds the fetched results and ``lastChanges`` the fetch's change
    /// set (or, if other change sets came after the fetch, the last of them).
    ///
    /// - Complexity: The first call, as ``FetchedResultsController/performFetch()``; later calls, O(1) per
    ///   change set not shown yet.
    public func fetchIfNeeded() async {
        if fetch == nil {
            state = .loading
            let controller = controller
            fetch = Task { _ = try? await controller.performFetch() }
        }
        await fetch?.value
        catchUp()
    }

    /// Pauses the controller (see ``FetchedResultsController/pause()``).
    ///
    /// - Complexity: As ``FetchedResultsController/pause()``.
    public func pause() {
        controller.pause()
        catchUp()
    }

    /// Resumes the controller, and shows its catch-up change set before it returns (see
    /// ``FetchedResultsController/resume()``).
    ///
    /// - Complexity: As ``FetchedResultsController/resume()``.
    public func resume() {
        controller.resume()
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
        let observed = controller._observedResults()
        if observed.version > version {
            let changes = _SnapshotDiff.changeSet(from: snapshot._storage, to: observed.snapshot._storage)
            show(observed.snapshot, after: changes, version: observed.version)
        }
        // Set only when they differ, so that a turn that finds nothing new is no observable change.
        if !Self.isSame(state, observed.state) { state = observed.state }
        if resultsOrigin != observed.origin { resultsOrigin = observed.origin }
        if isPaused != observed.isPaused { isPaused = observed.isPaused }
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
