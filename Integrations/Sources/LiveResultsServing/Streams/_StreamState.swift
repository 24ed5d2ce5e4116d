/// What one stream sends next, as its writer (the request's own task) asks: its updates when they are ready, the
/// source's status when it changes, a heartbeat after a silence, and the end.
///
/// A state machine under its stream's lock (``_StreamQueue``), on the times of the routes' heartbeat clock (the time
/// since that clock started, ``_HeartbeatTicker/now``), which callers pass in: its transitions say which signal wakes
/// the waiting writer, if any, and the tests drive it with any times they choose.
///
/// - `writing` ─ the writer asks, and nothing is due ─▶ `waiting`;
/// - `waiting` ─ updates are ready, the source's status changes, a tick finds the stream silent for the heartbeat
///   interval ─▶ `writing`, waking the writer with it;
/// - `writing`, `waiting` ─ the server shuts down, the client leaves, the writer's task is cancelled ─▶ `ended`.
///
/// What comes while the writer writes is noted (`Due`) and given when it asks next: the end first, then the
/// source's status, the updates, and a heartbeat last (dropped when the writer wrote meanwhile).
struct _StreamState: Sendable {
    /// What wakes the writer, or what it gets when it asks.
    enum Signal: Equatable, Sendable {
        /// Updates may be ready: poll the stream's updates.
        case pollUpdates
        /// The stream was silent for the heartbeat interval.
        case heartbeat
        /// The source's status changed to this.
        case source(available: Bool)
        /// The stream ends.
        case end
    }

    /// What came while the writer was writing.
    struct Due: Equatable, Sendable {
        var updates = false
        /// The source's last status, not sent yet.
        var source: Bool?
        var heartbeat = false
    }

    enum State: Equatable, Sendable {
        /// The writer writes (or is about to ask); what is due waits for it. Silent since the end of its last write.
        case writing(Due, silentSince: Duration)
        /// The writer waits for a signal: nothing is due.
        case waiting(silentSince: Duration)
        /// The stream ends: the writer gets ``Signal/end`` whenever it asks.
        case ended
    }

    private(set) var state: State
    /// The longest silence before a heartbeat; `nil`: no heartbeats (a WebSocket, which the framework pings).
    let heartbeat: Duration?

    /// A stream that starts at `now` with its updates due (the whole results or a catch-up are queued).
    init(at now: Duration, heartbeat: Duration?) {
        state = .writing(Due(updates: true), silentSince: now)
        self.heartbeat = heartbeat
    }

    /// The writer asks for what to send at `now`; `wrote` says whether it wrote what it got last, and `pollAgain`
    /// whether that was an update (more may be queued behind it: the update stream calls its handler only after a
    /// poll that found none).
    ///
    /// - Returns: What is due; `nil` when nothing is, and the writer waits (the state is then `waiting`).
    mutating func next(at now: Duration, wrote: Bool, pollAgain: Bool = false) -> Signal? {
        switch state {
        case .ended:
            return .end
        case .waiting(let silentSince):
            // Asked again without a signal between: only what the writer says is due.
            guard pollAgain else {
                state = .waiting(silentSince: wrote ? now : silentSince)
                return nil
            }
            state = .writing(Due(), silentSince: wrote ? now : silentSince)
            return .pollUpdates
        case .writing(var due, var silentSince):
            if wrote {
                silentSince = now
                due.heartbeat = false
            }
            if pollAgain { due.updates = true }
            let signal: Signal
            if let available = due.source {
                due.source = nil
                signal = .source(available: available)
            } else if due.updates {
                due.updates = false
                signal = .pollUpdates
            } else if due.heartbeat {
                due.heartbeat = false
                signal = .heartbeat
            } else {
                state = .waiting(silentSince: silentSince)
                return nil
            }
            state = .writing(due, silentSince: silentSince)
            return signal
        }
    }

    /// The stream's updates may be ready (the update stream's handler was called).
    ///
    /// - Returns: ``Signal/pollUpdates`` for the waiting writer, if it waits.
    mutating func updatesReady() -> Signal? {
        wake(with: .pollUpdates) { $0.updates = true }
    }

    /// The source's status changed.
    ///
    /// - Returns: ``Signal/source(available:)`` for the waiting writer, if it waits.
    mutating func sourceChanged(available: Bool) -> Signal? {
        wake(with: .source(available: available)) { $0.source = available }
    }

    /// The routes' heartbeat clock ticked at `now`: a stream silent for the heartbeat interval is due one.
    ///
    /// - Returns: ``Signal/heartbeat`` for the waiting writer, if it waits and the silence is long enough.
    mutating func tick(at now: Duration) -> Signal? {
        guard let heartbeat else { return nil }
        switch state {
        case .ended:
            return nil
        case .waiting(let silentSince), .writing(_, let silentSince):
            guard now - silentSince >= heartbeat else { return nil }
            return wake(with: .heartbeat) { $0.heartbeat = true }
        }
    }

    /// The stream ends: the server shuts down, the client left, or the writer's task was cancelled.
    ///
    /// - Returns: ``Signal/end`` for the waiting writer, if it waits.
    mutating func end() -> Signal? {
        defer { state = .ended }
        if case .waiting = state { return .end }
        return nil
    }

    /// Wakes a waiting writer with `signal`, or notes it in what is due for a writing one.
    private mutating func wake(with signal: Signal, noting: (inout Due) -> Void) -> Signal? {
        switch state {
        case .ended:
            return nil
        case .waiting(let silentSince):
            state = .writing(Due(), silentSince: silentSince)
            return signal
        case .writing(var due, let silentSince):
            noting(&due)
            state = .writing(due, silentSince: silentSince)
            return nil
        }
    }
}
