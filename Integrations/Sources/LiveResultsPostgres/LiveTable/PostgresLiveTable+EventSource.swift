import Foundation
import LiveResults
import PostgresNIO

extension PostgresLiveTable: EventSource {
    /// Starts listening on the table's channel for `subscriber`, on a connection of its own; or, with
    /// ``changes`` ``PostgresChangeSource/replication(_:)``, subscribes it to the feed (see
    /// ``PostgresChangeFeed``: one batch per committed transaction, in commit order, and `EntityEvent.invalidated`
    /// only for a `TRUNCATE` or a replaced slot).
    ///
    /// The subscription leases a connection from ``client`` for as long as it runs, and `LISTEN`s on
    /// ``channel``. Each transaction's notifications become one batch of events, delivered in commit
    /// order; rows too large for a notification are fetched first, in one query per batch. A notification
    /// that cannot be decoded is reported to the subscriber as a malformed event, never fatal. When the
    /// connection is lost (a server restart, `pg_terminate_backend`, a network failure), the subscription
    /// tries again after ``reconnectBackoff``'s waits and, once it listens again, sends
    /// `EntityEvent.invalidated`: the controller refetches, and its change set says what
    /// changed meanwhile. A `TRUNCATE` also sends `EntityEvent.invalidated`.
    ///
    /// A small transaction (up to 64 rows, each in its notification) is delivered on the connection's
    /// event loop thread, where the controller's callbacks then run with its default
    /// `CallbackScheduler.immediate`: don't block in them, or give the controller a queue
    /// (`callbackScheduler = .async(onQueue:)`). Larger ones are delivered from a task.
    ///
    /// ```swift
    /// let subscription = controller.observe(todos)
    /// try await controller.performFetch()   // waits for the LISTEN, so it misses nothing
    /// ```
    ///
    /// - Parameter subscriber: Receives the batches, one at a time, in commit order.
    /// - Returns: The subscription; cancelling or releasing it stops listening and returns the connection.
    /// - Complexity: Per notification, O(*s*) reading for a payload of *s* bytes, and its row's decoding.
    public func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription {
        if case .replication(let feed) = changes { return subscribe(subscriber, to: feed) }
        let invalidatesFirst = coordination.subscriptionStarted()
        let task = Task { [self] in
            await listen(for: subscriber, invalidatingOnFirstListen: invalidatesFirst)
        }
        return EventSubscription { task.cancel() }
    }

    /// Listens until cancelled, reconnecting after failures.
    func listen(for subscriber: EventSubscriber<Entity>, invalidatingOnFirstListen invalidatesFirst: Bool) async {
        var firstAttempt = true
        var listenedBefore = false
        var failures = 0
        defer {
            if firstAttempt { coordination.firstAttemptEnded() }
            listenerEvents?(.stopped)
        }
        let names: _TableNames
        do {
            names = try self.names.get()
        } catch {
            subscriber.reportMalformedEvent(error)
            return
        }
        let barrier = notificationBarriers.subscriptionStarted()
        let delivery = _NotificationDelivery(table: self, subscriber: subscriber, names: names, barrier: barrier)
        defer {
            delivery.stop()
            notificationBarriers.subscriptionEnded(barrier)
        }
        while !Task.isCancelled {
            let listened = _Flag()
            let failure: any Error
            do {
                try await listenOnce(
                    for: delivery, names: names, reconnected: listenedBefore, invalidatesFirst: invalidatesFirst,
                    endsFirstAttempt: firstAttempt, listened: listened)
                failure = _ListeningEnded()
            } catch {
                failure = error
            }
            if listened.isSet {
                // The attempt ended the first attempt itself, when it listened.
                listenedBefore = true
                firstAttempt = false
                failures = 0
            }
            guard !Task.isCancelled else { break }
            if firstAttempt {
                firstAttempt = false
                coordination.firstAttemptEnded()
            }
            failures += 1
            let wait = reconnectBackoff.wait(afterFailures: failures)
            listenerEvents?(.connectionFailed(failure, failures: failures, retryAfter: wait))
            try? await Task.sleep(for: wait)
        }
    }

    /// One attempt: leases a connection, listens, and lets `delivery` handle its notifications until the
    /// connection is lost or the task is cancelled.
    ///
    /// The notifications are handled by a listener closure on the connection's event loop (postgres-nio's
    /// `addListener`) rather than its `AsyncSequence`: see ``_NotificationDelivery``.
    private func listenOnce(
        for delivery: _NotificationDelivery<Entity>, names: _TableNames, reconnected: Bool, invalidatesFirst: Bool,
        endsFirstAttempt: Bool, listened: _Flag
    ) async throws {
        try await connecting { [self] connected in
            try await client.withConnection { connection in
                connected()
                let number = delivery.startConnection()
                // postgres-nio sends its own `LISTEN` for the listener; the one below says whether it worked, or why not.
                let listener = connection.addListener(channel: names.channel.name) { _, notification in
                    delivery.receive(notification.payload, connection: number)
                }
                do {
                    try await client.withTimeout(queryTimeout) { _ in
                        _ = try await connection.query(
                            PostgresQuery(unsafeSQL: "LISTEN \(names.channel.sql)"), logger: _silentLogger)
                    }
                    listened.set()
                    if endsFirstAttempt { coordination.firstAttemptEnded() }
                    listenerEvents?(.listening(channel: names.channel.name, reconnected: reconnected))
                    if reconnected || invalidatesFirst { delivery.invalidate() }
                    delivery.listened()
                    await Self.waitUntilClosedOrCancelled(connection)
                } catch {
                    listener.stop()
                    if !Task.isCancelled { await Self.closeBeforeRelease(connection) }
                    throw error
                }
                // Stopping the listener sends `UNLISTEN` on a connection that goes back to the pool.
                listener.stop()
                guard !Task.isCancelled else { return }
                await Self.closeBeforeRelease(connection)
                throw _ListeningEnded()
            }
        }
    }

    /// Returns when the connection closes or the task is cancelled.
    static func waitUntilClosedOrCancelled(_ connection: PostgresConnection) async {
        let closed = _Latch<Void>()
        connection.closeFuture.whenComplete { _ in closed.open(with: ()) }
        await closed.value(orOnCancellation: ())
    }

    /// Closes a listening connection that failed or ended, before `withConnection` gives it back to the pool.
    ///
    /// postgres-nio's pool (1.33) does not look at a connection it is given back: one that the server closed
    /// (`pg_terminate_backend`, a restart) but whose close the pool has not been told of yet is handed to the
    /// next request, and that request's query is written to a closed channel, its promise never completed: the
    /// caller waits forever, with no thread busy. Once `close()` returns, the connection's close future has
    /// completed, and with it the pool's own callback on it, registered first: the pool has dropped the
    /// connection, and the release that follows is a no-op.
    static func closeBeforeRelease(_ connection: PostgresConnection) async {
        try? await connection.close()
    }

    /// Fetches the rows whose ids the JSON array `json` holds (`[{"idColumn": id}, …]`), in one query; a row
    /// that does not decode is reported as malformed and left out.
    func fetchRows(identifiedBy json: String, names: _TableNames, subscriber: EventSubscriber<Entity>)
        async throws -> [Entity]
    {
        let row = Self.rowAlias
        let id = names.idColumn.sql
        var binds = PostgresBindings()
        binds.append(json)
        let query = PostgresQuery(
            unsafeSQL: """
                SELECT row_to_json(\(row))::text, \(row).\(id)::text FROM \(names.qualifiedTable) AS \(row)
                WHERE \(row).\(id) IN (SELECT wanted.\(id) FROM json_populate_recordset(NULL::\(names.qualifiedTable), $1::json) AS wanted)
                """,
            binds: binds)
        let rows = try await client.withTimeout(queryTimeout) { client in
            try await client.query(query).decode((String, String?).self).reduce(into: []) { $0.append($1) }
        }
        var entities: [Entity] = []
        for (json, id) in rows {
            do {
                entities.append(try decodeRow(json, id: id))
            } catch {
                subscriber.reportMalformedEvent(error)
            }
        }
        return entities
    }
}

/// The notifications of a listening connection ended without an error: the connection closed.
struct _ListeningEnded: Error, CustomStringConvertible {
    var description: String { "the listening connection closed" }
}
