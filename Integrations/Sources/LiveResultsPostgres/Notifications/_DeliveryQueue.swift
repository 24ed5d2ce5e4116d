/// The state of a subscription's deliveries: the transaction being gathered, and the complete ones not yet
/// delivered, in commit order. Only one thread delivers at a time, the one that ``enqueue(_:)``,
/// ``add(_:payload:connection:)`` or ``handOver(_:inlineLimit:)`` told to; it takes transactions with ``next()``
/// or ``nextBatch()`` until there are none (or, given a batch to deliver at once, calls ``finishInline()``).
///
/// Not generic, and kept apart from ``_NotificationDelivery`` for that reason: the state of a generic class
/// is generic too, and each step would look its type's metadata up.
struct _DeliveryQueue: Sendable {
    typealias Item = _TransactionBatch.Item

    /// The transaction being gathered, on the current connection.
    private var batch = _TransactionBatch()
    /// The current connection: notifications of an earlier one are ignored.
    private var connection = 0
    /// Complete transactions not yet delivered, from `head` on.
    private var queue: [[Item]] = []
    private var head = 0
    /// Whether a thread is delivering the queue.
    private var isDelivering = false
    /// Whether the subscription ended.
    private(set) var isStopped = false
    /// Whether the subscriber's last delivery was quick: only then is a hand-over delivered on its caller's thread.
    /// `false` until one was (the first goes to a task): a subscriber that blocks in its first batch holds back no
    /// hand-over of another.
    private var keepsUp = false

    /// A new connection listens: a transaction half-gathered on the previous one is dropped (the
    /// `invalidated` that follows a reconnection covers it). Returns the connection's number.
    mutating func startConnection() -> Int {
        connection += 1
        batch = _TransactionBatch()
        return connection
    }

    /// Adds a notification of connection `number`; returns whether the caller is to deliver the queue now,
    /// and the error that makes the notification malformed.
    mutating func add(_ notification: _Notification, payload: String, connection number: Int) -> (
        deliver: Bool, error: PostgresLiveTableError?
    ) {
        guard number == connection, !isStopped else { return (false, nil) }
        let queued = queue.count
        let error = batch.add(notification, payload: payload, completing: &queue)
        return (queue.count > queued && claimDelivery(), error)
    }

    /// Queues a complete transaction; returns whether the caller is to deliver the queue now.
    mutating func enqueue(_ transaction: [Item]) -> Bool {
        guard !isStopped else { return false }
        queue.append(transaction)
        return claimDelivery()
    }

    /// What the caller of ``handOver(_:inlineLimit:)`` is to do.
    enum HandOver {
        /// Deliver these items, the transactions handed over as one batch, right away on the caller's thread,
        /// then call ``finishInline()``.
        case deliverHere([Item])
        /// Start a task that delivers the queue (``nextBatch()``).
        case startTask
        /// Nothing: a delivery under way takes the transactions, or the subscription ended.
        case none
    }

    /// Takes complete transactions handed over together, in commit order.
    ///
    /// When no thread delivers and nothing is queued, the subscriber's last delivery was quick
    /// (``recordDelivery(quick:)``), and the transactions have at most `inlineLimit` items, none of them to fetch,
    /// they are to be delivered on the caller's thread as one batch: a hop to a task costs a thread's wake-up and the
    /// executor's jobs, about as much as applying the batch. Otherwise they are queued, and a task delivers them, so
    /// that a subscriber that is slow or falls behind (its batches grow past `inlineLimit`) or a fetch does not hold
    /// the caller back.
    mutating func handOver(_ transactions: [[Item]], inlineLimit: Int) -> HandOver {
        guard !isStopped, !transactions.isEmpty else { return .none }
        if keepsUp, !isDelivering, head == queue.count,
            Self.canDeliverInline(transactions, inlineLimit: inlineLimit)
        {
            isDelivering = true
            return .deliverHere(transactions.count == 1 ? transactions[0] : Array(transactions.joined()))
        }
        queue.append(contentsOf: transactions)
        return claimDelivery() ? .startTask : .none
    }

    /// Whether `transactions` fit in one delivery on the caller's thread: few items, none to fetch, no marker, and
    /// no `invalidated` (the subscriber refetches, and that fetch meets the change feed whose reading task would be
    /// delivering it).
    private static func canDeliverInline(_ transactions: [[Item]], inlineLimit: Int) -> Bool {
        var count = 0
        for transaction in transactions {
            count += transaction.count
            guard count <= inlineLimit else { return false }
            for item in transaction {
                switch item {
                case .fetch, .marker, .invalidated: return false
                case .row, .deleted: continue
                }
            }
        }
        return true
    }

    /// Records how long the subscriber took with a batch: one that was not `quick` sends the next hand-overs to a
    /// task, until a delivery is quick again.
    mutating func recordDelivery(quick: Bool) { keepsUp = quick }

    /// The caller delivered what ``handOver(_:inlineLimit:)`` gave it; returns whether it is to start a task that
    /// delivers what was queued meanwhile (a marker, say). When it is not, no thread delivers any more.
    mutating func finishInline() -> Bool {
        guard !isStopped, head < queue.count else {
            isDelivering = false
            return false
        }
        return true
    }

    /// Whether the caller is to deliver the queue: when no other thread does.
    private mutating func claimDelivery() -> Bool {
        guard !isDelivering else { return false }
        isDelivering = true
        return true
    }

    /// The next transaction to deliver; `nil` when there is none, and the delivering thread stops.
    mutating func next() -> [Item]? {
        guard !isStopped, head < queue.count else {
            isDelivering = false
            return nil
        }
        defer {
            head += 1
            // Keeps the queue's buffer: it is empty again after almost every transaction.
            if head == queue.count {
                queue.removeAll(keepingCapacity: true)
                head = 0
            }
        }
        return queue[head]
    }

    /// The transactions queued next as one batch, for a thread that delivers from a task: every one up to the
    /// first marker, or that marker alone (it runs after the batch before it reached the subscriber); `nil` when
    /// there is none, and the delivering thread stops.
    ///
    /// A subscriber still busy with a batch while several transactions commit gets them as one batch: one
    /// change, one version of its windows, rather than one per transaction, so that a subscriber whose batches
    /// cost more than the time between commits catches up instead of falling further behind.
    mutating func nextBatch() -> [Item]? {
        guard !isStopped, head < queue.count else {
            isDelivering = false
            return nil
        }
        var end = head + 1
        if !Self.isMarker(queue[head]) {
            while end < queue.count, !Self.isMarker(queue[end]) { end += 1 }
        }
        let batch = end == head + 1 ? queue[head] : Array(queue[head..<end].joined())
        head = end
        if head == queue.count {
            queue.removeAll(keepingCapacity: true)
            head = 0
        }
        return batch
    }

    private static func isMarker(_ transaction: [Item]) -> Bool {
        if case .marker? = transaction.first { true } else { false }
    }

    /// The subscription ended: nothing more is delivered. Returns the markers that were queued, to run.
    mutating func stop() -> [_DeliveryMarker] {
        isStopped = true
        defer { (queue, head) = ([], 0) }
        return queue[head...].flatMap { $0 }.compactMap { if case .marker(let marker) = $0 { marker } else { nil } }
    }
}
