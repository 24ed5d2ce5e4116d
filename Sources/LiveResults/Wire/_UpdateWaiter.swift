/// Who waits for an update stream's next item: a task suspended in ``ResultsUpdates/Iterator/next()``, or the
/// handler that ``ResultsUpdates/Iterator/poll(whenReady:)`` left, which a consumer that waits for other things
/// too (a server's stream: its heartbeats, its client's departure) gives instead of suspending a task here.
///
/// Resumed once, after the lock that queued the item is released.
@usableFromInline enum _UpdateWaiter: Sendable {
    case task(UnsafeContinuation<Void, Never>)
    case handler(@Sendable () -> Void)

    /// Resumes the task, or calls the handler.
    @inlinable func resume() {
        switch self {
        case .task(let continuation): continuation.resume()
        case .handler(let handler): handler()
        }
    }
}
