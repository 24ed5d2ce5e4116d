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
/// await model.fetchIfNeeded()
/// for section in model.sections { print(section.name, section.numberOfObjects) }
/// ```
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
    @ObservationIgnored private var hasFetched = false
    /// Ends the observation of the controller when the model goes.
    @ObservationIgnored private let subscription: EventSubscription

    /// Follows `controller` from its current results on.
    public init(_ controller: FetchedResultsController<Entity>) {
        self.controller = controller
        let (updates, continuation) = AsyncStream.makeStream(
            of: (changes: ChangeSet<Entity>, snapshot: FetchedResultsSnapshot<Entity>).self)
        let (start, observation) = controller.observeChanges { changes, snapshot in
            continuation.yield((changes, snapshot))
        }
        snapshot = start
        state = controller.state
        isPaused = controller.isPaused
        resultsOrigin = controller.resultsOrigin
        subscription = EventSubscription {
            observation.cancel()
            continuation.finish()
        }
        // One task takes the change sets in order; it holds the model weakly, and ends with the stream.
        Task { [weak self] in
            for await update in updates {
                self?.receive(update.changes, update.snapshot)
            }
        }
    }

    /// The sections of ``snapshot``.
    public var sections: FetchedResultsSections<Entity> { snapshot.sections }

    /// All entities of ``snapshot`` in display order.
    public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }

    /// Fetches with the controller the first time it is called; later calls do nothing. A failure shows
    /// in ``state`` as ``FetchState/failed(_:)``, not as an error.
    ///
    /// - Complexity: The first call, as ``FetchedResultsController/performFetch()``; later calls, O(1).
    public func fetchIfNeeded() async {
        guard !hasFetched else { return }
        hasFetched = true
        state = .loading
        _ = try? await controller.performFetch()
        state = controller.state
        resultsOrigin = controller.resultsOrigin
    }

    /// Pauses the controller (see ``FetchedResultsController/pause()``).
    ///
    /// - Complexity: As ``FetchedResultsController/pause()``.
    public func pause() {
        controller.pause()
        isPaused = true
    }

    /// Resumes the controller; its catch-up change set reaches the model as every change set does (see
    /// ``FetchedResultsController/resume()``).
    ///
    /// - Complexity: As ``FetchedResultsController/resume()``.
    public func resume() {
        controller.resume()
        isPaused = false
    }

    private func receive(_ changes: ChangeSet<Entity>, _ snapshot: FetchedResultsSnapshot<Entity>) {
        self.snapshot = snapshot
        lastChanges = changes
        state = controller.state
        resultsOrigin = controller.resultsOrigin
        isPaused = controller.isPaused
    }
}
