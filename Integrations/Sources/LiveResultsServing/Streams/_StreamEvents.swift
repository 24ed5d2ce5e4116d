import LiveResults

/// Reads one stream's events from its ``_StreamQueue``, in the task that writes them: the updates are polled when
/// the queue says they may be ready (the update stream's handler wakes it), so no task waits on them.
struct _StreamEvents<Entity: FetchableEntity & Codable> {
    /// Owns the update stream's subscription.
    private let updates: ResultsUpdates<Entity>.Iterator
    /// Where the stream's signals meet.
    let queue: _StreamQueue
    /// Wakes the queue: made once, kept by the update stream while it waits.
    private let wake: @Sendable () -> Void
    /// Whether the last event returned was something to write, and whether it was an update.
    private var wrote = false
    private var wroteUpdate = false

    init(updates: ResultsUpdates<Entity>, queue: _StreamQueue) {
        self.updates = updates.makeAsyncIterator()
        self.queue = queue
        wake = { [queue] in queue.updatesReady() }
    }

    /// The next event, waiting for it; ``_StreamEvent/shutdown`` when the stream ends (its updates included), `nil`
    /// when the task is cancelled.
    mutating func next() async -> _StreamEvent<Entity>? {
        while true {
            let signal = await queue.next(wrote: wrote, pollAgain: wroteUpdate)
            wrote = true
            wroteUpdate = false
            switch signal {
            case .pollUpdates:
                switch updates.poll(whenReady: wake) {
                case .update(let update):
                    wroteUpdate = true
                    return .update(update)
                case .pending: wrote = false
                case .finished:
                    queue.end()
                    return .shutdown
                }
            case .heartbeat: return .heartbeat
            case .source(let available): return .source(available: available)
            case .end: return Task.isCancelled ? nil : .shutdown
            }
        }
    }
}
