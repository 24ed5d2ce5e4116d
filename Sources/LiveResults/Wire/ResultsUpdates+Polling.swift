/// Reading an update stream without suspending a task on it, for a consumer that waits for other things too.
extension ResultsUpdates {
    /// What ``Iterator/poll(whenReady:)`` found.
    public enum Poll: Sendable {
        /// The next update, which was ready.
        case update(ResultsUpdate<Entity>)
        /// No update is ready: the handler is called once one is, or once the stream is over.
        case pending
        /// The stream is over, as when ``Iterator/next()`` returns `nil`.
        case finished
    }
}

extension ResultsUpdates.Iterator {
    /// The next update if one is ready, without waiting; when none is, `handler` is kept and called once, as
    /// soon as one is ready or the stream is over, and the result is ``ResultsUpdates/Poll/pending``.
    ///
    /// For a consumer that waits for more than updates in one task (a server's stream also waits for its
    /// heartbeats and for its client to leave): it waits for all of them in one place of its own, which the
    /// handler wakes, and polls again. The handler runs where the update is queued, after the library's locks are
    /// released, in order with the other deliveries: it should only wake the consumer. A later poll replaces a
    /// handler not called yet; a handler may be called when the update it announced was already read by a
    /// poll (then the next poll finds nothing and keeps the handler again).
    ///
    /// ```swift
    /// let iterator = controller.updates().makeAsyncIterator()
    /// switch iterator.poll(whenReady: { wakeUp() }) {
    /// case .update(let update): send(update)
    /// case .pending: break   // wakeUp() runs when there is one
    /// case .finished: stop()
    /// }
    /// ```
    ///
    /// - Parameter handler: Called at most once, from the thread that queues the next update (or ends the stream).
    /// - Returns: The update, or whether the stream is waiting or over.
    /// - Complexity: As ``next()``; O(1) when no update is ready.
    @inlinable public func poll(whenReady handler: @escaping @Sendable () -> Void) -> ResultsUpdates<Entity>.Poll {
        switch _subscription.subscriber.take(orWhenReady: handler) {
        case .some(.some(let next)):
            // `nil` only when the controller is gone before a catch-up was read: the stream is over.
            guard let update = _subscription.update(next.item, after: next.base) else { return .finished }
            return .update(update)
        case .some(.none): return .finished
        case .none: return .pending
        }
    }
}
