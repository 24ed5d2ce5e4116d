import Foundation
import LiveResults
import NIOConcurrencyHelpers

/// One subscription's notifications, from their payloads to its subscriber: gathered into transactions,
/// then delivered one transaction at a time, in commit order, across reconnections.
///
/// A notification arrives on its connection's event loop. When the transaction it completes is small,
/// carries its rows, and nothing is queued before it, it is decoded and delivered right there: a hop to a
/// task for each transaction (a thread woken, the task resumed, an `AsyncStream` in between) cost about
/// as much as the rest of its work at 500 transactions per second. Larger transactions, and rows too large
/// for their notification (fetched first, with a query), go to a task, and the transactions behind them
/// wait in the queue, so that the order stays the commit order.
final class _NotificationDelivery<Entity: FetchableEntity & Decodable>: Sendable where Entity.ID: Decodable {
    typealias Item = _TransactionBatch.Item

    /// Transactions of at most this many rows are delivered on the event loop (a change feed's hand-over, on its
    /// reading task); larger ones in a task, so that the event loop, which also serves the client's other
    /// connections, or the reading task, which serves every table, is not held for long.
    static var largestOnEventLoop: Int { 64 }

    /// A change feed's subscriber whose batch took longer than this is delivered from a task until one is quicker:
    /// the reading task, which serves every table, is held at most once by a subscriber slower than the commits.
    static var slowDelivery: Duration { .milliseconds(1) }

    private let state = NIOLockedValueBox(_DeliveryQueue())
    private let table: PostgresLiveTable<Entity>
    private let subscriber: EventSubscriber<Entity>
    private let names: _TableNames
    /// The subscription's number among the table's barriers, when it listens to notifications (a change feed's
    /// subscription meets its barriers by position instead).
    private let barrier: Int?

    init(table: PostgresLiveTable<Entity>, subscriber: EventSubscriber<Entity>, names: _TableNames, barrier: Int? = nil)
    {
        self.table = table
        self.subscriber = subscriber
        self.names = names
        self.barrier = barrier
    }

    /// A new connection listens: returns its number for ``receive(_:connection:)``.
    func startConnection() -> Int { state.withLockedValue { $0.startConnection() } }

    /// Handles one notification's payload, on the connection's event loop.
    func receive(_ payload: String, connection: Int) {
        if let token = _NotificationBarriers.token(in: payload) {
            // Another process's barrier, or one of this subscription's: it passes once what came before is delivered.
            if let barrier { afterQueued { [table] in table.notificationBarriers.passed(token, by: barrier) } }
            return
        }
        let notification: _Notification
        do {
            notification = try _Notification.read(payload)
        } catch {
            subscriber.reportMalformedEvent(
                PostgresLiveTableError.malformedNotification(payload: String(payload.prefix(200)), underlying: error))
            return
        }
        let (deliver, error) = state.withLockedValue { $0.add(notification, payload: payload, connection: connection) }
        if let error { subscriber.reportMalformedEvent(error) }
        if deliver { deliverQueue() }
    }

    /// Sends `invalidated` after the transactions already queued (after a reconnection).
    func invalidate() {
        if state.withLockedValue({ $0.enqueue([.invalidated]) }) { Task { await deliverQueue(startingWith: nil) } }
    }

    /// The subscription listens (again): once what is queued has been delivered, it passes the barriers started
    /// before, whose notifications it may have missed while it did not listen.
    func listened() {
        guard let barrier else { return }
        afterQueued { [table] in table.notificationBarriers.listened(barrier) }
    }

    /// Delivers complete transactions handed over together (a change feed's, in commit order) after those
    /// already queued: as one batch on the caller's thread while the subscriber keeps up, else from a task.
    ///
    /// The change feed's one reading task hands over the transactions of every table and meets their fetches.
    /// When nothing is queued or being delivered, and the batch is small with no row to fetch, it delivers the
    /// batch itself: a hop to a task for each hand-over (a thread woken, the task scheduled and run) cost about
    /// as much as the subscriber's work. Otherwise a task delivers: were the reading task to deliver everything
    /// itself, a subscriber slower than the commits (a large window's versions, say) would hold every table back,
    /// and each of its transactions would cost it a batch of its own, so that it fell further behind. The task
    /// delivers those queued meanwhile as one batch (``_DeliveryQueue/nextBatch()``), and while it is busy the
    /// reading task only queues. Only a subscriber whose last batch took less than ``slowDelivery`` is delivered on
    /// the reading task (the first batch goes to the task): one that blocks or falls behind holds the reading task
    /// at most once, then its deliveries move to the task.
    func enqueue(_ transactions: [[Item]]) {
        switch state.withLockedValue({ $0.handOver(transactions, inlineLimit: Self.largestOnEventLoop) }) {
        case .deliverHere(let items):
            let start = ContinuousClock.now
            subscriber.receive(events(of: items, fetched: [:]))
            let quick = Self.isQuick(since: start)
            let startTask = state.withLockedValue { state in
                state.recordDelivery(quick: quick)
                return state.finishInline()
            }
            if startTask { Task { await deliverQueue(startingWith: nil) } }
        case .startTask:
            Task { await deliverQueue(startingWith: nil) }
        case .none:
            break
        }
    }

    /// Runs `action` once every transaction queued before it has reached the subscriber; at once when the
    /// subscription ended.
    func afterQueued(_ action: @escaping @Sendable () -> Void) {
        let marker = _DeliveryMarker(action)
        let (deliver, stopped) = state.withLockedValue { ($0.enqueue([.marker(marker)]), $0.isStopped) }
        if stopped { marker.run() }
        if deliver { deliverQueue() }
    }

    /// The subscription ended: nothing more is delivered (the markers queued run now).
    func stop() { state.withLockedValue { $0.stop() }.forEach { $0.run() } }

    /// Delivers the queue on this thread until it is empty, or hands it to a task at the first
    /// transaction that is large or needs a fetch.
    private func deliverQueue() {
        while let items = state.withLockedValue({ $0.next() }) {
            if case .marker(let marker)? = items.first {
                marker.run()
                continue
            }
            guard items.count <= Self.largestOnEventLoop, !items.contains(where: { $0.needsFetch }) else {
                Task { await deliverQueue(startingWith: items) }
                return
            }
            subscriber.receive(events(of: items, fetched: [:]))
        }
    }

    /// Delivers the queue from a task, after `first` (taken from it already), fetching large rows as needed;
    /// the transactions queued meanwhile go as one batch.
    private func deliverQueue(startingWith first: [Item]?) async {
        var next = first ?? state.withLockedValue { $0.nextBatch() }
        while let items = next {
            let start = ContinuousClock.now
            await deliverWithFetch(items)
            let quick = Self.isQuick(since: start)
            next = state.withLockedValue { state in
                state.recordDelivery(quick: quick)
                return state.nextBatch()
            }
        }
    }

    /// Whether a delivery that started at `start` took less than ``slowDelivery``.
    private static func isQuick(since start: ContinuousClock.Instant) -> Bool {
        ContinuousClock.now - start < slowDelivery
    }

    /// Delivers transactions (one batch) after fetching the rows they lack.
    private func deliverWithFetch(_ items: [Item]) async {
        if case .marker(let marker)? = items.first {
            marker.run()
            return
        }
        var fetched: [Entity.ID: Entity] = [:]
        if let wanted = _TransactionBatch.rowsToFetch(items, idColumn: names.idColumn.name) {
            do {
                for entity in try await table.fetchRows(identifiedBy: wanted, names: names, subscriber: subscriber) {
                    fetched[entity.id] = entity
                }
            } catch {
                guard !state.withLockedValue({ $0.isStopped }) else { return }
                table.listenerEvents?(.rowFetchFailed(error))
                subscriber.receive(.invalidated)
                return
            }
        }
        guard !state.withLockedValue({ $0.isStopped }) else { return }
        subscriber.receive(events(of: items, fetched: fetched))
    }

    /// The events of a transaction's items; a row or an id that does not decode is reported and left out.
    private func events(of items: [Item], fetched: [Entity.ID: Entity]) -> [EntityEvent<Entity>] {
        var events: [EntityEvent<Entity>] = []
        events.reserveCapacity(items.count)
        for item in items {
            switch item {
            case .invalidated:
                events.append(.invalidated)
            case .row(let row, let isInsert, let id):
                do {
                    let entity = try row.decode(as: Entity.self, with: table.decoder)
                    events.append(isInsert ? .inserted(entity) : .updated(entity))
                } catch {
                    subscriber.reportMalformedEvent(PostgresLiveTableError.undecodableRow(id: id, underlying: error))
                }
            case .deleted(let id):
                if let id = decodeID(id) { events.append(.deleted(id)) }
            case .fetch(let id, let isInsert):
                // A row that is gone was deleted since; its own notification follows.
                guard let id = decodeID(id) else { continue }
                events.append(fetched[id].map { isInsert ? .inserted($0) : .updated($0) } ?? .deleted(id))
            case .marker(let marker):
                marker.run()
            }
        }
        return events
    }

    private func decodeID(_ json: String) -> Entity.ID? {
        do {
            return try table.decoder.decode(Entity.ID.self, from: Data(json.utf8))
        } catch {
            subscriber.reportMalformedEvent(PostgresLiveTableError.undecodableID(underlying: error))
            return nil
        }
    }
}
