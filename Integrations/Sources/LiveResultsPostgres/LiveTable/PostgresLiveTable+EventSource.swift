import Foundation
import LiveResults
import PostgresNIO

extension PostgresLiveTable: EventSource {
    /// Starts listening on the table's channel for `subscriber`, on a connection of its own.
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
    /// ```swift
    /// let subscription = controller.observe(todos)
    /// try await controller.performFetch()   // waits for the LISTEN, so it misses nothing
    /// ```
    ///
    /// - Parameter subscriber: Receives the batches, from the subscription's task.
    /// - Returns: The subscription; cancelling or releasing it stops listening and returns the connection.
    /// - Complexity: Per notification, O(*s*) decoding for a payload of *s* bytes.
    public func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription {
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
        while !Task.isCancelled {
            let listened = _Flag()
            let failure: any Error
            do {
                try await listenOnce(
                    for: subscriber, names: names, reconnected: listenedBefore,
                    invalidatesFirst: invalidatesFirst, endsFirstAttempt: firstAttempt, listened: listened)
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

    /// One attempt: leases a connection, listens, and handles notifications until the connection is lost.
    private func listenOnce(
        for subscriber: EventSubscriber<Entity>, names: _TableNames, reconnected: Bool, invalidatesFirst: Bool,
        endsFirstAttempt: Bool, listened: _Flag
    ) async throws {
        try await connecting { [self] connected in
            try await client.withConnection { connection in
                connected()
                do {
                    try await connection.listen(on: names.channel.name) { notifications in
                        listened.set()
                        if endsFirstAttempt { coordination.firstAttemptEnded() }
                        listenerEvents?(.listening(channel: names.channel.name, reconnected: reconnected))
                        if reconnected || invalidatesFirst { subscriber.receive(.invalidated) }
                        var batch = _TransactionBatch<Entity>()
                        for try await notification in notifications {
                            await receive(notification.payload, into: &batch, for: subscriber, names: names)
                        }
                    }
                } catch {
                    if !Task.isCancelled { await Self.closeBeforeRelease(connection) }
                    throw error
                }
                guard !Task.isCancelled else { return }
                await Self.closeBeforeRelease(connection)
                throw _ListeningEnded()
            }
        }
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

    /// Handles one notification: adds it to the transaction's batch, and delivers the batch when it is complete.
    func receive(
        _ payload: String, into batch: inout _TransactionBatch<Entity>, for subscriber: EventSubscriber<Entity>,
        names: _TableNames
    ) async {
        // Markers are half of the notifications: read without a JSON decoder when they have the trigger's form.
        if let transaction = _Notification.commitMarkerTransaction(payload) {
            if batch.isCompleted(by: transaction) { await deliver(batch.take(), to: subscriber, names: names) }
            await deliver(batch.take(), to: subscriber, names: names)
            return
        }
        let data = Data(payload.utf8)
        let notification: _Notification
        // With the table decoder's key strategy left alone (or snake case), one pass decodes the payload and
        // its row; a custom key strategy only sees the row, in a second pass.
        var row: Result<Entity, any Error>?
        do {
            if usesPlainKeys {
                let decoded = try decoder.decode(_Payload<Entity>.self, from: data)
                notification = decoded.notification
                row = decoded.row
            } else {
                notification = try JSONDecoder().decode(_Notification.self, from: data)
                if notification.hasRow { row = Result { try decoder.decode(_RowBox<Entity>.self, from: data).row } }
            }
        } catch {
            subscriber.reportMalformedEvent(
                PostgresLiveTableError.malformedNotification(payload: String(payload.prefix(200)), underlying: error))
            return
        }
        let transaction = notification.transaction
        if batch.isCompleted(by: transaction) {
            await deliver(batch.take(), to: subscriber, names: names)
        }
        guard let operation = _Notification.Operation(rawValue: notification.operation) else {
            subscriber.reportMalformedEvent(PostgresLiveTableError.unknownOperation(notification.operation))
            return
        }
        switch operation {
        case .commit:
            await deliver(batch.take(), to: subscriber, names: names)
        case .truncate:
            batch.append(.event(.invalidated), of: transaction)
            await deliver(batch.take(), to: subscriber, names: names)
        case .insert, .update, .delete:
            guard let rawID = notification.id else {
                subscriber.reportMalformedEvent(
                    PostgresLiveTableError.malformedNotification(payload: String(payload.prefix(200)), underlying: nil))
                return
            }
            switch (operation, row) {
            case (.insert, .success(let entity)?), (.update, .success(let entity)?):
                batch.append(.event(operation == .insert ? .inserted(entity) : .updated(entity)), of: transaction)
            case (.insert, .failure(let error)?), (.update, .failure(let error)?):
                subscriber.reportMalformedEvent(
                    PostgresLiveTableError.undecodableRow(id: rawID.description, underlying: error))
            default:
                // A deletion, or a row too large for its notification: the id is all there is.
                let id: Entity.ID
                do {
                    id = try decoder.decode(Entity.ID.self, from: JSONEncoder().encode(rawID))
                } catch {
                    subscriber.reportMalformedEvent(PostgresLiveTableError.undecodableID(underlying: error))
                    return
                }
                batch.append(
                    operation == .delete
                        ? .event(.deleted(id)) : .fetch(id: id, rawID: rawID, isInsert: operation == .insert),
                    of: transaction)
            }
        }
    }

    /// Delivers a transaction's items as one batch of events, after fetching the rows they lack.
    func deliver(_ items: [_TransactionBatch<Entity>.Item], to subscriber: EventSubscriber<Entity>, names: _TableNames)
        async
    {
        guard !items.isEmpty else { return }
        let wanted = _TransactionBatch<Entity>.rowsToFetch(items, idColumn: names.idColumn.name)
        var fetched: [Entity.ID: Entity] = [:]
        if !wanted.isEmpty {
            do {
                for entity in try await fetchRows(identifiedBy: wanted, names: names, subscriber: subscriber) {
                    fetched[entity.id] = entity
                }
            } catch {
                listenerEvents?(.rowFetchFailed(error))
                subscriber.receive(.invalidated)
                return
            }
        }
        let events = items.map { item -> EntityEvent<Entity> in
            switch item {
            case .event(let event): event
            case .fetch(let id, _, let isInsert):
                // A row that is gone was deleted since; its own notification follows.
                fetched[id].map { isInsert ? .inserted($0) : .updated($0) } ?? .deleted(id)
            }
        }
        subscriber.receive(events)
    }

    /// Fetches the rows whose ids `rows` holds (`[{"idColumn": id}, …]`), in one query; a row that does not
    /// decode is reported as malformed and left out.
    func fetchRows(identifiedBy rows: [_JSONValue], names: _TableNames, subscriber: EventSubscriber<Entity>)
        async throws -> [Entity]
    {
        let json = String(decoding: try JSONEncoder().encode(rows), as: UTF8.self)
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
        var entities: [Entity] = []
        for try await (json, id) in try await client.query(query).decode((String, String?).self) {
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

extension _JSONValue: CustomStringConvertible {
    var description: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "?"
    }
}
