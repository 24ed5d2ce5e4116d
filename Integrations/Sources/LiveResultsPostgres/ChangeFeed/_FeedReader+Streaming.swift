import NIOCore
import PostgresNIO

extension _FeedReader {
    /// The most often the stream asks the server for its position while a fetch waits for one.
    static let pingInterval = Duration.milliseconds(10)

    /// Gets the slot ready on `connection`, then follows it as a replication stream on a connection of its own
    /// (``PostgresChangeFeed/Transport/replicationProtocol(_:)``), until the task is cancelled or either connection
    /// fails. `connection` keeps the slot's advisory lock and looks the subscriptions' tables up.
    mutating func stream(
        with configuration: PostgresConnection.Configuration, on connection: PostgresConnection
    ) async throws {
        (hasRead, transaction, skipping) = (false, nil, false)
        let connection = _ClosedConnectionGuard(connection)
        try await prepareSlot(on: connection)
        let start = max(confirmed, delivered)
        let stream = try await _ReplicationStream.start(
            configuration: configuration, slot: slotName, position: start, publication: publication,
            interval: feed.readInterval)
        feed.streamStarted(run: run) { stream.wake() }
        var position = start
        do {
            try await follow(stream, position: &position, on: connection)
        } catch {
            // Transactions read but not handed over yet (a batch cut short by a malformed message, say) are read
            // again: the next stream starts where the last hand-over ended.
            delivered = min(delivered, position)
            feed.streamEnded(run: run)
            await stream.close()
            throw error
        }
    }

    /// Reads the stream's messages, and hands the transactions committed in each batch the stream hands over (at
    /// once after a quiet spell, at most every ``PostgresChangeFeed/readInterval`` while they keep coming: see
    /// ``_ReplicationHandler``) to the subscriptions. Confirms what it handed over at most every
    /// ``confirmationInterval``, and at once when the server asks. Between messages, does what the SQL path does at
    /// each step: looks new subscriptions' tables up, releases the fetches waiting for that, and asks the server for
    /// its position while a fetch waits for one (and at most every ``lagInterval`` for the feed's lag).
    ///
    /// - Parameter position: Every transaction that committed before it was handed over; kept up to date.
    private mutating func follow(
        _ stream: _ReplicationStream, position: inout UInt64, on connection: _ClosedConnectionGuard
    ) async throws {
        // Every transaction that committed before `received` was read.
        var received = position
        var held: [_FeedTransaction] = []
        var lastConfirmation = ContinuousClock.now
        var lastPing = ContinuousClock.now - Self.pingInterval
        for try await message in stream.messages {
            var replyRequested = false
            switch message {
            case .data(var data):
                let step = try consume(&data)
                if let end = step.committed {
                    received = max(received, end)
                    feed.learnedServerPosition(end)
                }
                if let transaction = step.transaction { held.append(transaction) }
                continue
            case .keepalive(let walEnd, let reply):
                feed.learnedServerPosition(walEnd)
                // A keepalive comes between transactions, but for one sent while a large one is written out.
                if transaction == nil, !skipping { received = max(received, walEnd) }
                guard reply else { continue }
                replyRequested = true
            case .handOver:
                deliver(held, to: feed.subscriptions)
                held = []
                position = received
                feed.advanced(run: run, to: position)
            case .started:
                hasRead = true
                try await keepUp(on: connection)
            case .wake, .tick:
                try await keepUp(on: connection)
            }
            let now = ContinuousClock.now
            let ping = feed.awaitsDeliveries && now - lastPing >= Self.pingInterval
            let confirmation = position > confirmed && now - lastConfirmation >= Self.confirmationInterval
            if ping || replyRequested || confirmation {
                stream.confirm(position, replyRequested: ping)
                (confirmed, lastConfirmation) = (position, now)
                if ping { lastPing = now }
            }
        }
        throw _ReplicationStream.Closed()
    }

    /// Looks the new subscriptions' tables up, applies the snapshots fetches recorded, lets the fetches waiting for
    /// the lookups go on, and sweeps the slots of feeds that are gone when that is due (at a tick at the latest).
    private mutating func keepUp(on connection: _ClosedConnectionGuard) async throws {
        for subscription in feed.subscriptions {
            if subscription.relation == nil { try await lookUp(subscription, on: connection) }
            subscription.flush()
        }
        feed.resumeReadyFetches()
        try await sweepIfDue(on: connection)
        // The keepalives carry the position the server has sent, not the end of its log, which the walsender may
        // still be decoding towards: read on the slot's connection, once a second at most.
        let now = feed.clock.now
        if now - lastPositionRead >= Self.lagInterval {
            lastPositionRead = now
            if let end = try await currentPosition(on: connection) { feed.learnedServerPosition(end) }
        }
    }
}
