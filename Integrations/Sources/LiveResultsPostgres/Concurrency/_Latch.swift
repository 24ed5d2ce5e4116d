import NIOConcurrencyHelpers

/// A value that is set once, and awaited: the first ``open(with:)`` wins, later ones do nothing.
final class _Latch<Value: Sendable>: Sendable {
    private enum Phase {
        case waiting(CheckedContinuation<Value, Never>?)
        case opened(Value)
    }

    private let phase = NIOLockedValueBox(Phase.waiting(nil))

    /// The value the latch opened with, once it opens; if the task is cancelled first, the latch opens
    /// with `cancelled`.
    func value(orOnCancellation cancelled: Value) async -> Value {
        await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let opened = phase.withLockedValue { phase -> Phase? in
                    guard case .waiting = phase else { return phase }
                    phase = .waiting(continuation)
                    return nil
                }
                if case .opened(let value) = opened { continuation.resume(returning: value) }
            }
        } onCancel: {
            open(with: cancelled)
        }
    }

    /// Opens the latch with `value`, unless it is open already.
    func open(with value: Value) {
        let continuation = phase.withLockedValue { phase -> CheckedContinuation<Value, Never>? in
            guard case .waiting(let continuation) = phase else { return nil }
            phase = .opened(value)
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
