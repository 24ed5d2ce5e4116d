import LiveResults
import Observation

/// The results of a ``RemoteResults`` as an `@Observable` model on the main actor, as
/// `ObservableResults` is for a controller: what a SwiftUI view holds, and what
/// `withObservationTracking` follows everywhere.
///
/// ```swift
/// @MainActor let model = ObservableRemoteResults(remote)
/// remote.start()
/// model.sections; model.state; model.lastChanges
/// ```
///
/// After each change set and each change of state, it updates its properties together on the main
/// actor, in the order the remote results delivered them. On Linux the main actor runs only while the
/// program drains the main queue.
@MainActor @Observable
public final class ObservableRemoteResults<Entity: FetchableEntity & Codable> {
    /// The remote results it follows.
    @ObservationIgnored public let remote: RemoteResults<Entity>
    /// The results after the last change set it received.
    public private(set) var snapshot: FetchedResultsSnapshot<Entity>
    /// The connection's state, as last received.
    public private(set) var state: RemoteResults<Entity>.State
    /// The last change set it received.
    public private(set) var lastChanges: ChangeSet<Entity>?
    @ObservationIgnored private let subscription: EventSubscription
    @ObservationIgnored private var delivery: Task<Void, Never>?

    /// Follows `remote` from its current results on.
    public init(_ remote: RemoteResults<Entity>) {
        self.remote = remote
        let (events, continuation) = AsyncStream<_RemoteEvent<Entity>>.makeStream()
        let (start, subscription) = remote.observe { continuation.yield($0) }
        self.subscription = subscription
        snapshot = start
        state = remote.state
        delivery = Task { @MainActor [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .changes(let changes, let snapshot):
                    self.snapshot = snapshot
                    self.lastChanges = changes
                case .state(let state):
                    self.state = state
                }
            }
        }
    }

    isolated deinit {
        subscription.cancel()
        delivery?.cancel()
    }

    /// The sections of ``snapshot``.
    public var sections: FetchedResultsSections<Entity> { snapshot.sections }
    /// The results of ``snapshot`` in order.
    public var fetchedObjects: FetchedObjects<Entity> { snapshot.fetchedObjects }
}
