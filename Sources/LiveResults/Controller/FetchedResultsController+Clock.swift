extension FetchedResultsController {
    /// The clock of the controller's timers: the end of a coalescing interval (``coalescingInterval``) and the
    /// ticks of ``poll(every:)``. The continuous clock, unless a test sets one that it drives, before it sets an
    /// interval or starts polling.
    var _clock: _ControllerClock {
        get { _state.withLock { $0.clock } }
        set { _state.withLock { $0.clock = newValue } }
    }
}
