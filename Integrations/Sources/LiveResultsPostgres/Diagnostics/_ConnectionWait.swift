import Synchronization

/// One operation's wait for a connection from the client, which ends in one of three ways: the
/// operation got its connection, a connection attempt failed meanwhile (with the reason), or the
/// operation was cancelled.
final class _ConnectionWait: Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<String?, Never>?)
        case ended(String?)
    }

    private let phase = Mutex(Phase.waiting(nil))

    /// The reason of a connection attempt that failed while the operation waited; `nil` once it is
    /// connected, or when the waiting task is cancelled.
    func failure() async -> String? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let ended = phase.withLock { phase -> String?? in
                    switch phase {
                    case .ended(let reason): return .some(reason)
                    case .waiting:
                        phase = .waiting(continuation)
                        return .none
                    }
                }
                if case .some(let reason) = ended { continuation.resume(returning: reason) }
            }
        } onCancel: {
            end(with: nil)
        }
    }

    /// The operation has its connection: attempts that fail from now on are not its concern.
    func connected() { end(with: nil) }

    /// A connection attempt failed while the operation waited.
    func fail(_ reason: String) { end(with: reason) }

    private func end(with reason: String?) {
        let continuation = phase.withLock { phase -> CheckedContinuation<String?, Never>? in
            guard case .waiting(let continuation) = phase else { return nil }
            phase = .ended(reason)
            return continuation
        }
        continuation?.resume(returning: reason)
    }
}
