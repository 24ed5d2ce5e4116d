import Foundation
import NIOConcurrencyHelpers

/// A table's barriers through its notifications: a round sends one notification on the table's channel, after
/// every transaction committed before it (notifications arrive in commit order), and ends once each of the
/// table's subscriptions in this process has delivered what came before it.
///
/// A subscription passes a round when the barrier's notification reaches it (after the transactions queued before
/// it, as a delivery marker), or when it listens again: a subscription between connections misses notifications,
/// and the `EntityEvent.invalidated` it sends once it listens again makes its controllers refetch instead. Other
/// processes' subscriptions receive the notification too, and ignore a token they do not know.
final class _NotificationBarriers: Sendable {
    /// A notification's payload starts with it when it is a barrier: the token follows.
    static let prefix = "liveresults-barrier:"

    private struct Round {
        var pending: Set<Int>
        let latch: _Latch<_DeliveryWait>
    }

    private struct State {
        var subscriptions: Set<Int> = []
        var nextSubscription = 0
        var rounds: [String: Round] = [:]

        /// Subscription `number` passes every round: the latches of those it ended.
        mutating func passAll(_ number: Int) -> [_Latch<_DeliveryWait>] {
            var ended: [_Latch<_DeliveryWait>] = []
            for (token, var round) in rounds where round.pending.contains(number) {
                round.pending.remove(number)
                rounds[token] = round
                if round.pending.isEmpty { ended.append(round.latch) }
            }
            return ended
        }
    }

    private let state = NIOLockedValueBox(State())

    /// The token a barrier's payload carries, or `nil` when the payload is not a barrier's.
    static func token(in payload: String) -> Substring? {
        // The trigger's payloads are JSON objects: one byte tells them apart.
        guard payload.utf8.first != UInt8(ascii: "{"), payload.hasPrefix(prefix) else { return nil }
        return payload.dropFirst(prefix.count)
    }

    /// A subscription starts: returns its number.
    func subscriptionStarted() -> Int {
        state.withLockedValue { state in
            defer { state.nextSubscription += 1 }
            state.subscriptions.insert(state.nextSubscription)
            return state.nextSubscription
        }
    }

    /// Subscription `number` ended: it holds no round back.
    func subscriptionEnded(_ number: Int) {
        state.withLockedValue { state in
            state.subscriptions.remove(number)
            return state.passAll(number)
        }.forEach { $0.open(with: .delivered) }
    }

    /// Subscription `number` delivered what came before barrier `token`.
    func passed(_ token: Substring, by number: Int) {
        state.withLockedValue { state -> _Latch<_DeliveryWait>? in
            guard var round = state.rounds[String(token)] else { return nil }
            round.pending.remove(number)
            state.rounds[String(token)] = round
            return round.pending.isEmpty ? round.latch : nil
        }?.open(with: .delivered)
    }

    /// Subscription `number` listens again: it passes every round started before.
    func listened(_ number: Int) {
        state.withLockedValue { $0.passAll(number) }.forEach { $0.open(with: .delivered) }
    }

    /// Starts a round named `token`, which opens `latch` when it ends; `false` when no subscription is live (there
    /// is nothing to wait for).
    func start(_ token: String, latch: _Latch<_DeliveryWait>) -> Bool {
        state.withLockedValue { state in
            guard !state.subscriptions.isEmpty else { return false }
            state.rounds[token] = Round(pending: state.subscriptions, latch: latch)
            return true
        }
    }

    /// Round `token` is over (it ended or timed out).
    func end(_ token: String) {
        _ = state.withLockedValue { $0.rounds.removeValue(forKey: token) }
    }
}
