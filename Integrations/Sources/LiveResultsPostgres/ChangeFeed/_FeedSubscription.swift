import NIOConcurrencyHelpers

/// One subscription of a table to a ``PostgresChangeFeed``: which relation it follows, and where it stands with
/// respect to its table's fetches.
///
/// Until a fetch of its table takes its snapshot, the transactions the feed reads for it are held; then those
/// the snapshot sees (they are in the fetch's result) are dropped, the others delivered, and every later one
/// the snapshot sees is skipped too. So the fetch and the feed meet exactly: a transaction is in the fetch's
/// result or delivered after it, never both, never neither. The same holds after each `.invalidated` the feed
/// sends (a `TRUNCATE`, a replaced slot). The fetch that releases it may be another controller's: a later fetch
/// that finds it released (``meet(_:invalidating:)`` says `.metBefore`) waits until the subscription has
/// received everything its own snapshot sees (``whenDelivered(_:)``), so that those transactions are replayed
/// onto its result, never delivered after it.
///
/// Only the feed's reading task delivers (``offer(_:)``, ``flush()``, ``invalidate()``), so deliveries keep the
/// commit order (it hands them to the table's delivery, which gives them to the subscriber at once or queues them
/// for a task of its own); a fetch only records its snapshot (``meet(_:invalidating:)``), which the reading task
/// applies at its next step.
final class _FeedSubscription: Sendable {
    typealias Item = _TransactionBatch.Item

    /// The most changes held for a table whose fetch has not recorded its snapshot yet; past it they are
    /// dropped, and the table is sent `.invalidated` once the fetch ends, to refetch.
    static var maximumHeld: Int { 100_000 }

    private enum Phase: Sendable {
        /// Waiting for a fetch's snapshot; transactions are held.
        case awaitingFetch
        /// A fetch recorded its snapshot (or, `invalidating`, met a slot that was since replaced).
        case released(_Snapshot, invalidating: Bool)
        /// Delivering every transaction the snapshot does not see.
        case live(_Snapshot)
    }

    private struct State: Sendable {
        var phase = Phase.awaitingFetch
        var held: [(xid: UInt32, items: [Item])] = []
        var heldCount = 0
        var overflowed = false
        var relation: UInt32?
    }

    /// The ``PostgresLiveTable`` whose fetches release this subscription.
    let table: ObjectIdentifier
    /// The table's quoted, possibly schema-qualified name, for `to_regclass`.
    let qualifiedTable: String
    /// The id column's name.
    let idColumn: String
    /// Hands complete transactions, in commit order, to the subscriber's delivery.
    private let deliver: @Sendable ([[Item]]) -> Void
    private let report: @Sendable (any Error) -> Void
    private let afterDeliveries: @Sendable (@escaping @Sendable () -> Void) -> Void
    private let state = NIOLockedValueBox(State())

    init(
        table: ObjectIdentifier, qualifiedTable: String, idColumn: String,
        deliver: @escaping @Sendable ([[Item]]) -> Void, report: @escaping @Sendable (any Error) -> Void,
        afterDeliveries: @escaping @Sendable (@escaping @Sendable () -> Void) -> Void
    ) {
        self.table = table
        self.qualifiedTable = qualifiedTable
        self.idColumn = idColumn
        self.deliver = deliver
        self.report = report
        self.afterDeliveries = afterDeliveries
    }

    /// How a fetch's snapshot met the subscription (``meet(_:invalidating:)``).
    enum Meeting {
        /// The subscription awaited a fetch: it skips what this snapshot sees.
        case released
        /// A fetch met it before: it skips what `snapshot` sees (`nil`: it refetches, having met a replaced slot
        /// or started after a fetch).
        case metBefore(_Snapshot?)
    }

    /// A fetch of the table took `snapshot`: a subscription awaiting a fetch is released with it; one that a
    /// fetch met before says with which snapshot.
    func meet(_ snapshot: _Snapshot, invalidating: Bool) -> Meeting {
        state.withLockedValue { state in
            switch state.phase {
            case .awaitingFetch:
                state.phase = .released(snapshot, invalidating: invalidating)
                return .released
            case .released(let before, let refetches):
                return .metBefore(refetches ? nil : before)
            case .live(let before):
                return .metBefore(before)
            }
        }
    }

    /// Runs `action` once every transaction handed to the subscriber so far has reached it. Called by the
    /// reading task, after ``flush()``.
    func whenDelivered(_ action: @escaping @Sendable () -> Void) { afterDeliveries(action) }

    /// The OID of the table, once the reading task looked it up.
    var relation: UInt32? {
        get { state.withLockedValue { $0.relation } }
        set { state.withLockedValue { $0.relation = newValue } }
    }

    /// Reports what could not be delivered.
    func reportMalformed(_ error: any Error) { report(error) }

    /// A fetch of the table read its rows in `snapshot`; `invalidating` when the slot it met was replaced since.
    func release(snapshot: _Snapshot, invalidating: Bool) {
        state.withLockedValue { state in
            guard case .awaitingFetch = state.phase else { return }
            state.phase = .released(snapshot, invalidating: invalidating)
        }
    }

    /// Applies a recorded snapshot: delivers the held transactions the snapshot does not see.
    func flush() {
        let transactions = state.withLockedValue { state -> [[Item]] in
            guard case .released(let snapshot, let invalidating) = state.phase else { return [] }
            defer { (state.held, state.heldCount, state.overflowed) = ([], 0, false) }
            if invalidating || state.overflowed {
                state.phase = .awaitingFetch
                return [[.invalidated]]
            }
            state.phase = .live(snapshot)
            return state.held.filter { !snapshot.sees($0.xid) }.map(\.items)
        }
        if !transactions.isEmpty { deliver(transactions) }
    }

    /// Delivers committed transactions' items for the table (those of one hand-over, in commit order, together),
    /// holds them, or skips them (the fetch has them).
    func offer(_ transactions: [(xid: UInt32, items: [Item])]) {
        flush()
        let delivered = state.withLockedValue { state -> [[Item]] in
            var delivered: [[Item]] = []
            for (xid, items) in transactions {
                switch state.phase {
                case .awaitingFetch, .released:
                    state.heldCount += items.count
                    if state.heldCount > Self.maximumHeld {
                        (state.held, state.overflowed) = ([], true)
                    } else if !state.overflowed {
                        state.held.append((xid, items))
                    }
                case .live(let snapshot):
                    if snapshot.sees(xid) { continue }
                    // A TRUNCATE's `.invalidated` makes the controller refetch: that fetch meets the feed exactly,
                    // and the transactions after it in this hand-over are held for it.
                    if items.contains(where: { if case .invalidated = $0 { true } else { false } }) {
                        state.phase = .awaitingFetch
                    }
                    delivered.append(items)
                }
            }
            return delivered
        }
        if !delivered.isEmpty { deliver(delivered) }
    }

    /// The slot was replaced: a live subscription is sent `.invalidated` and waits for the refetch's snapshot.
    func invalidate() {
        let send = state.withLockedValue { state -> Bool in
            (state.held, state.heldCount, state.overflowed) = ([], 0, false)
            switch state.phase {
            case .awaitingFetch:
                // A fetch that met the old slot finds out when it records its snapshot.
                return false
            case .released(let snapshot, _):
                state.phase = .released(snapshot, invalidating: true)
                return false
            case .live:
                state.phase = .awaitingFetch
                return true
            }
        }
        if send { deliver([[.invalidated]]) }
    }
}

extension _FeedSubscription {
    /// Runs `action` once every transaction queued so far to each of `subscriptions` (those a fetch released since
    /// the reading task's last step first) has reached its subscriber; at once when there are none.
    static func whenDelivered(_ subscriptions: [_FeedSubscription], _ action: @escaping @Sendable () -> Void) {
        let countdown = _DeliveryCountdown(count: subscriptions.count, then: action)
        for subscription in subscriptions {
            subscription.flush()
            subscription.whenDelivered { countdown.tick() }
        }
    }
}
