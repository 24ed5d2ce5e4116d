import Dispatch

/// The change sets delivered to an ``ObservableResults`` that it has not shown yet, each with the version
/// it leads to, and whether a turn of the main actor to show them is scheduled.
///
/// The controller delivers on its own thread (or where its scheduler says); the model shows on the main
/// actor. The inbox lets the model show them at the first of its own calls (``ObservableResults/fetchIfNeeded()``,
/// `resume()`) or of the turns it schedules, in order, each once.
@usableFromInline final class _ObservedInbox<Entity: FetchableEntity>: Sendable {
    @usableFromInline struct Delivery: Sendable {
        @usableFromInline let changes: ChangeSet<Entity>
        @usableFromInline let snapshot: FetchedResultsSnapshot<Entity>
        @usableFromInline let version: UInt64
    }

    @usableFromInline struct State: Sendable {
        @usableFromInline var deliveries: [Delivery] = []
        @usableFromInline var isScheduled = false
        /// Shows what the inbox holds, on the main actor; holds the model weakly.
        @usableFromInline var show: (@MainActor @Sendable () -> Void)?
    }

    @usableFromInline let state = _Lock(State())

    @usableFromInline init() {}

    /// Sets what shows the deliveries, once the model exists.
    @usableFromInline func setShow(_ show: @escaping @MainActor @Sendable () -> Void) {
        state.withLock { $0.show = show }
    }

    /// Keeps a delivery, and schedules a turn of the main actor to show it unless one is scheduled.
    ///
    /// The turn is queued on the main queue before the delivery returns, so a caller on the main actor
    /// that awaited the change (a fetch made through the controller, say) finds it shown when it resumes
    /// (the main queue runs in order), unless the controller delivers later (another thread was
    /// delivering, or its scheduler is a queue).
    @usableFromInline func receive(
        _ changes: ChangeSet<Entity>, _ snapshot: FetchedResultsSnapshot<Entity>, _ version: UInt64
    ) {
        let schedules = state.withLock { state in
            state.deliveries.append(Delivery(changes: changes, snapshot: snapshot, version: version))
            defer { state.isScheduled = true }
            return !state.isScheduled
        }
        guard schedules else { return }
        DispatchQueue.main.async { [self] in
            MainActor.assumeIsolated {
                state.withLock { $0.show }?()
            }
        }
    }

    /// Takes the deliveries kept, in order; the next one schedules a turn again.
    @usableFromInline func take() -> [Delivery] {
        state.withLock { state in
            state.isScheduled = false
            defer { state.deliveries = [] }
            return state.deliveries
        }
    }
}
