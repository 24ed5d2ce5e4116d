import Dispatch

/// Where a ``FetchedResultsController`` runs its delegate callbacks.
///
/// Callbacks for one controller always run one at a time, in the order the changes happened.
/// Nothing is hard-wired to the main actor: on Linux the main queue only runs when the host program
/// drains it (`dispatchMain()`, a run loop, or an async `main`).
///
/// ```swift
/// controller.callbackScheduler = .async(onQueue: DispatchQueue(label: "ui"))
/// ```
public struct CallbackScheduler: Sendable {
    @usableFromInline enum Kind: Sendable {
        case immediate
        case queue(DispatchQueue)
    }

    @usableFromInline let kind: Kind

    /// Runs callbacks right away, on the thread that made the change, before the change's
    /// `apply(_:)` returns (unless the change was made from inside a callback or while another thread
    /// was delivering; then that delivery runs it next, still in order). The default.
    public static let immediate = CallbackScheduler(kind: .immediate)

    /// Runs callbacks asynchronously on a **serial** queue, in order.
    @inlinable public static func async(onQueue queue: DispatchQueue) -> CallbackScheduler {
        CallbackScheduler(kind: .queue(queue))
    }

    /// Runs callbacks asynchronously on the main queue, which is the main actor's executor.
    public static let mainActor = CallbackScheduler(kind: .queue(.main))

    @inlinable func schedule(_ work: @escaping @Sendable () -> Void) {
        switch kind {
        case .immediate: work()
        case .queue(let queue): queue.async(execute: work)
        }
    }

    @usableFromInline
    init(kind: Kind) {
        self.kind = kind
    }
}
