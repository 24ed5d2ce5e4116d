import Foundation
import LiveResults
import Metrics
import NIOConcurrencyHelpers
import PostgresNIO

/// PostgreSQL's write-ahead log as the change feed of any number of ``PostgresLiveTable``s: one logical
/// replication slot, read with the built-in `pgoutput` plugin over one of the client's connections, or as a
/// replication stream on a connection of its own (``Transport/replicationProtocol(_:)``, which costs the server
/// and the writers least: see ``Transport``).
///
/// `NOTIFY` serializes the commits of every notifying transaction of the server (it holds one lock from a
/// commit until its record is flushed); logical decoding reads the log after the fact and costs writers next
/// to nothing. The feed reads its slot with `pg_logical_slot_peek_binary_changes` whenever the server's log has
/// moved, at most ``chunkSize`` changes at a time, delivers each committed transaction to every table it touched as
/// one batch, in commit order, and then confirms it with `pg_replication_slot_advance` (at most every 100
/// milliseconds while changes keep coming). Reads start ``readInterval`` apart while they find changes, and
/// further apart, up to ``maximumReadInterval``, while they find nothing.
/// Transactions queued for a subscriber that is still busy (or not yet reached) go to it together as one batch,
/// never split; a slow subscriber catches up that way, and holds back no other.
///
/// Over SQL:
///
/// ```swift
/// let feed = PostgresChangeFeed(client: client, publication: "liveresults", slot: .temporary)
/// try await feed.setUp(tables: ["todos"])   // CREATE PUBLICATION (idempotent), after checking the server
/// let todos = PostgresLiveTable<Todo>(client: client, table: "todos", changes: .replication(feed))
/// let subscription = controller.observe(todos)
/// try await controller.performFetch()
/// ```
///
/// As a replication stream, with a connection configuration for the same server and database:
///
/// ```swift
/// let replication = PostgresConnection.Configuration(
///     host: "db.internal", username: "app", password: secret, database: "app", tls: .require(tlsContext))
/// let feed = PostgresChangeFeed(
///     client: client, publication: "liveresults", transport: .replicationProtocol(replication))
/// ```
///
/// The feed starts reading with its tables' first subscription and stops with their last, unless it is held
/// (``keepReading()``: a server that follows its tables for its life keeps its slot ready); ``shutdown(timeout:)``
/// stops it for good and drops its temporary slot, as a server stops gracefully. Nothing is lost
/// across a lost connection or a restart of PostgreSQL: the slot keeps what was not confirmed, and the feed
/// resumes from there, without a refetch. A slot that disappeared or that PostgreSQL invalidated
/// (`max_slot_wal_keep_size`) is replaced, and each table's subscribers are sent `EntityEvent.invalidated`
/// once, to refetch. See the *PostgreSQL* article, *Choosing the change feed*, for the setup of managed servers,
/// slot hygiene and the trade-offs.
public final class PostgresChangeFeed: Sendable {
    /// The replication slot the feed reads.
    public enum Slot: Sendable, Hashable {
        /// A slot of this process, named `liveresults_tmp_<pid>_<random>`, that the feed drops when it stops
        /// reading: at ``PostgresChangeFeed/shutdown(timeout:)``, which a server calls as it stops gracefully and
        /// which waits for the drop, or when its last subscription ends. Should that drop not happen (the process
        /// crashed or was killed, or the database was out of reach at the shutdown), the other feeds reading the
        /// same database do.
        ///
        /// It is a persistent slot, not one of PostgreSQL's temporary slots: those end with the connection
        /// that created them, and the feed must survive a lost connection without losing its position.
        /// While it reads, the feed holds an advisory lock on its slot's name, on the connection that reads it.
        /// Every running feed looks every 5 seconds for the `liveresults_tmp_` slots of its database that are
        /// inactive and whose lock nobody holds, and drops one that stayed so at every look for 15 seconds (or
        /// the feed's longest reconnection wait plus 5 seconds): long enough for a live feed that lost its
        /// connection to come back, short enough that a dead process's slot holds the log for less than 30
        /// seconds. Each drop is reported as ``PostgresChangeFeedEvent/abandonedSlotDropped(slot:unownedFor:)``.
        case temporary
        /// A slot that survives the process: a feed started again with the same name resumes where the last
        /// one stopped. PostgreSQL keeps the log for it until it is read or dropped (see the *PostgreSQL*
        /// article): drop one that is no longer used with `SELECT pg_drop_replication_slot('name')`. No feed
        /// drops it; a name starting with `liveresults_tmp_`, which temporary slots take, is refused.
        case named(String)
    }

    /// The client that reads the slot (on one connection it leases while the feed reads) and runs the setup.
    public let client: PostgresClient
    /// The publication that says which tables the slot's messages cover.
    public let publication: String
    /// The slot the feed reads.
    public let slot: Slot
    /// How the feed reads its slot: over SQL (the default) or as a replication stream.
    public let transport: Transport
    /// The time from the start of a read of the slot that found changes to the start of the next: while
    /// changes keep coming, the bound on their latency, plus a read. 20 milliseconds by default.
    ///
    /// For a replication stream (``Transport/replicationProtocol(_:)``), the shortest time between two deliveries
    /// while transactions keep coming: one that arrives after a quiet spell is delivered at once.
    ///
    /// The wait adapts to what the reads find:
    ///
    /// - After a read that found changes, the next read starts one interval after this one started (a read that
    ///   took longer than the interval is followed by a quarter of it). What it delivered is confirmed
    ///   (`pg_replication_slot_advance`, which decodes the log again) at most every 100 milliseconds while changes
    ///   keep coming; reads in between return those transactions again, and the feed skips them unparsed.
    /// - After a read that returned a full chunk (``chunkSize`` changes), the feed reads again at once.
    /// - Once reads have found nothing for as long as ``maximumReadInterval``, the wait doubles, up to it; the
    ///   first read that finds a change brings it back to this interval. Shorter gaps (a writer's pause, a slow
    ///   flush) keep this interval. A fetch that waits for the feed (a table's first fetch, or a later one that must
    ///   meet the feed's position) wakes it at once.
    /// - After a read that found nothing, the next step first asks for the position up to which the server's log
    ///   is written (`pg_current_wal_flush_lsn()`, one short query) and reads the slot only when that moved: an
    ///   idle feed costs one short query per wait, and PostgreSQL decodes nothing for it.
    ///
    /// The *PostgreSQL* article, *Choosing the change feed*, has the latency and the cost measured with the
    /// defaults.
    public let readInterval: Duration
    /// The longest wait between two reads of the slot, reached once reads have found nothing for about twice as
    /// long: the bound on the latency of the first change after a quiet spell. 1 second by default; equal to
    /// ``readInterval``, the feed never slows down when idle (a short query every interval: about 2 % of a core on
    /// each side, measured).
    public let maximumReadInterval: Duration
    /// The most changes (rows) one read asks for; a read returns whole transactions, so one larger than
    /// this still arrives as one batch. 1,000 by default.
    public let chunkSize: Int
    /// The waits between attempts to read again after a lost connection.
    public let reconnectBackoff: Backoff
    /// Receives what the feed does (see ``PostgresChangeFeedEvent``).
    public let events: (@Sendable (PostgresChangeFeedEvent) -> Void)?
    /// How far the feed is behind the server's log (``_FeedLag``), and its gauges, `liveresults_feed_lag_bytes`
    /// and `liveresults_feed_lag_seconds`, recorded as it changes.
    let lag = NIOLockedValueBox(_FeedLag())
    let lagGauges: (bytes: Gauge, seconds: Gauge)

    let publicationName: Result<_QuotedIdentifier, PostgresLiveTableError>
    /// Where the feed is: its subscriptions, its run and what its reading task does.
    let machine = NIOLockedValueBox(_FeedStateMachine())
    /// The clock that paces the reads (``_FeedClock``).
    let clock: _FeedClock
    /// How often the reading task looks for the temporary slots of feeds that are gone, and how long one must stay
    /// unowned before it is dropped (``_SlotSweep``).
    let slotSweep: _SlotSweep.Timing

    /// Creates a feed. Nothing is sent to the server until ``setUp(tables:schema:)`` or a subscription.
    ///
    /// - Parameters:
    ///   - client: The client that reads the slot and runs the setup. It must be running.
    ///   - publication: The publication's name; ``setUp(tables:schema:)`` creates it.
    ///   - slot: ``Slot/temporary`` (the default) or ``Slot/named(_:)``.
    ///   - transport: ``Transport/sqlFunctions`` (the default), or ``Transport/replicationProtocol(_:)`` with a
    ///     connection configuration that has a host or a Unix socket path (not an established channel).
    ///   - readInterval: The time from a read that found changes to the next; 20 milliseconds by default.
    ///   - maximumReadInterval: The longest wait, after reads that found nothing; 1 second by default. At least
    ///     `readInterval`.
    ///   - chunkSize: The most changes one read asks for; 1,000 by default.
    ///   - reconnectBackoff: The waits after a lost connection; 0.1 second doubling up to 10 seconds by default.
    ///   - events: Receives what the feed does.
    ///   - metricsFactory: Where the feed records how far it is behind the server's log, in bytes
    ///     (`liveresults_feed_lag_bytes`) and seconds (`liveresults_feed_lag_seconds`), as it reads: swift-metrics'
    ///     `MetricsSystem.factory` by default (`nil`). The *PostgreSQL* article, *Watching the feed*, says what they
    ///     mean. One feed per process reports to these names; a second one overwrites them.
    /// - Complexity: O(1).
    public convenience init(
        client: PostgresClient,
        publication: String,
        slot: Slot = .temporary,
        transport: Transport = .sqlFunctions,
        readInterval: Duration = .milliseconds(20),
        maximumReadInterval: Duration = .seconds(1),
        chunkSize: Int = 1000,
        reconnectBackoff: Backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(10), jitter: 0.5),
        events: (@Sendable (PostgresChangeFeedEvent) -> Void)? = nil,
        metricsFactory: (any MetricsFactory)? = nil
    ) {
        self.init(
            client: client, publication: publication, slot: slot, transport: transport, readInterval: readInterval,
            maximumReadInterval: maximumReadInterval, chunkSize: chunkSize, reconnectBackoff: reconnectBackoff,
            events: events, metricsFactory: metricsFactory, clock: ContinuousClock())
    }

    /// Creates a feed whose reads are paced by `clock`: its waits between reads, the time a read took and when it
    /// last confirmed are measured on it (a test's manual clock decides when they end). The reconnection waits, the
    /// fetches' timeouts and a replication stream's timing (its hand-overs, pings and confirmations) stay on the
    /// continuous clock: they bound or pace a real server's answers. The sweep of abandoned slots runs on `clock`
    /// too, with `slotSweep`'s timing (``_SlotSweep/Timing/forFeed(maximumReconnectDelay:)`` when `nil`).
    init(
        client: PostgresClient,
        publication: String,
        slot: Slot = .temporary,
        transport: Transport = .sqlFunctions,
        readInterval: Duration = .milliseconds(20),
        maximumReadInterval: Duration = .seconds(1),
        chunkSize: Int = 1000,
        reconnectBackoff: Backoff = Backoff(initialDelay: .milliseconds(100), maximumDelay: .seconds(10), jitter: 0.5),
        events: (@Sendable (PostgresChangeFeedEvent) -> Void)? = nil,
        metricsFactory: (any MetricsFactory)? = nil,
        clock: some Clock<Duration>,
        slotSweep: _SlotSweep.Timing? = nil
    ) {
        precondition(chunkSize > 0, "a read asks for at least one change")
        precondition(
            readInterval >= .zero && maximumReadInterval >= readInterval, "0 <= readInterval <= maximumReadInterval")
        self.client = client
        self.publication = publication
        if case .replicationProtocol(let configuration) = transport {
            precondition(
                configuration.host != nil || configuration.unixSocketPath != nil,
                "a replication connection is opened anew after each failure: give a host or a Unix socket path")
        }
        self.slot = slot
        self.transport = transport
        self.readInterval = readInterval
        self.maximumReadInterval = maximumReadInterval
        self.chunkSize = chunkSize
        self.reconnectBackoff = reconnectBackoff
        self.events = events
        let factory = metricsFactory ?? MetricsSystem.factory
        lagGauges = (
            Gauge(label: "liveresults_feed_lag_bytes", factory: factory),
            Gauge(label: "liveresults_feed_lag_seconds", factory: factory)
        )
        self.clock = _FeedClock(clock)
        self.slotSweep = slotSweep ?? .forFeed(maximumReconnectDelay: reconnectBackoff.maximumDelay)
        self.publicationName = Result { () throws(PostgresLiveTableError) in try _QuotedIdentifier(publication) }
    }

    /// The slot's name for a run of the feed: the named one, or a new temporary one.
    func slotName() throws(PostgresLiveTableError) -> String {
        switch slot {
        case .named(let name):
            guard !name.hasPrefix(Self.temporaryPrefix) else {
                throw .invalidIdentifier(
                    name,
                    reason: "names starting with \(Self.temporaryPrefix) are the temporary slots', which feeds drop")
            }
            return try _QuotedIdentifier(name).name
        case .temporary:
            let random = UInt32.random(in: 0...UInt32.max)
            return "\(Self.temporaryPrefix)\(ProcessInfo.processInfo.processIdentifier)_\(String(random, radix: 16))"
        }
    }

    /// SQL for the position up to which the log is written durably (on a standby, replayed): every transaction
    /// that committed synchronously and that a snapshot taken before sees ends before it.
    ///
    /// A transaction committed with `synchronous_commit = off` can be visible before its commit record is
    /// flushed; one such a fetch saw may reach the subscriptions after the fetch's result (a brief replay).
    static var positionSQL: String {
        "(CASE WHEN pg_is_in_recovery() THEN pg_last_wal_replay_lsn() ELSE pg_current_wal_flush_lsn() END)::text"
    }

    /// The names of ``Slot/temporary`` slots start with it.
    static var temporaryPrefix: String { "liveresults_tmp_" }

    /// A regular expression (PostgreSQL's) that the names of ``Slot/temporary`` slots match, and only they: the
    /// prefix, the process's id and a random number in hexadecimal.
    static var temporarySlotPattern: String { "^liveresults_tmp_[0-9]+_[0-9a-f]+$" }
}
