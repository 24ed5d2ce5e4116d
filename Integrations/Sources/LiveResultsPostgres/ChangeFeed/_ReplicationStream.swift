import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL
import PostgresNIO

/// One `START_REPLICATION` stream of a slot: a connection of its own in replication mode, which postgres-nio
/// opens (startup, authentication, TLS) and ``_ReplicationHandler`` then speaks on.
///
/// PostgreSQL pushes each transaction once its commit is flushed, decoding the log once as it is written. Read
/// over SQL, each read decodes the log again from the slot's restart position (up to 15 seconds of it), which
/// costs the server a core's fraction at thousands of transactions per second and adds that time to the latency.
final class _ReplicationStream: Sendable {
    /// What the stream hands to the reading task.
    enum Message: Sendable {
        /// The server accepted `START_REPLICATION` (CopyBothResponse).
        case started
        /// One `pgoutput` message (the payload of an XLogData message).
        case data(ByteBuffer)
        /// The server's position: every transaction that committed before `walEnd` was sent before this.
        case keepalive(walEnd: UInt64, replyRequested: Bool)
        /// ``wake()`` was called: the reading task has something to do besides the stream.
        case wake
        /// ``_ReplicationHandler/tickInterval`` passed.
        case tick
        /// The end of what arrived since the last hand-over (see ``_ReplicationHandler``): deliver what was read.
        case handOver
    }

    typealias Messages = NIOThrowingAsyncSequenceProducer<
        Message, any Error, NIOAsyncSequenceProducerBackPressureStrategies.HighLowWatermark, Delegate
    >

    /// Resumes the handler's reads when the reading task caught up, and closes its connection when the task left.
    struct Delegate: NIOAsyncSequenceProducerDelegate {
        let handler: NIOLoopBound<_ReplicationHandler>

        func produceMore() {
            handler.eventLoop.execute { handler.value.produceMore() }
        }

        func didTerminate() {
            handler.eventLoop.execute { handler.value.terminated() }
        }
    }

    /// The connection closed, or the server ended the stream.
    struct Closed: Error, CustomStringConvertible {
        var description: String { "the change feed's replication connection closed" }
    }

    /// The stream heard nothing, not even an answer to a ping, for ``_ReplicationHandler/stallTimeout``.
    struct Stalled: Error, CustomStringConvertible {
        var silence: TimeAmount
        var description: String {
            "the change feed's replication connection was silent for \(silence.nanoseconds / 1_000_000_000) s"
        }
    }

    /// An ErrorResponse: `START_REPLICATION` refused (the slot is missing, in use, or lost its log), or the stream
    /// ended by the server.
    struct ServerError: Error, CustomStringConvertible {
        /// The SQLSTATE.
        var code: String
        var message: String

        init(code: String, message: String) {
            (self.code, self.message) = (code, message)
        }

        /// Reads the fields of an ErrorResponse's body.
        init(fields body: inout ByteBuffer) {
            var (code, message) = ("", "")
            while let field = body.readInteger(as: UInt8.self), field != 0, let value = body.readNullTerminatedString()
            {
                if field == UInt8(ascii: "C") { code = value }
                if field == UInt8(ascii: "M") { message = value }
            }
            self.init(code: code, message: message)
        }

        var description: String { "PostgreSQL refused the replication stream (\(code)): \(message)" }

        /// Whether the slot does not exist (`undefined_object`).
        var slotIsMissing: Bool { code == "42704" }
    }

    /// The messages, for the reading task alone.
    let messages: Messages
    private let connection: PostgresConnection
    private let handler: NIOLoopBound<_ReplicationHandler>

    private init(connection: PostgresConnection, handler: NIOLoopBound<_ReplicationHandler>, messages: Messages) {
        self.connection = connection
        self.handler = handler
        self.messages = messages
    }

    /// Connects as `configuration` says, in replication mode, and starts streaming `slot` from `position` with
    /// `pgoutput`'s protocol 1 and `publication`. The first message is ``Message/started``, or the sequence throws
    /// the server's refusal.
    static func start(
        configuration: PostgresConnection.Configuration, slot: String, position: UInt64,
        publication: _QuotedIdentifier, interval: Duration
    ) async throws -> _ReplicationStream {
        let channel = try await connect(configuration)
        var replication = PostgresConnection.Configuration(
            establishedChannel: channel, tls: configuration.tls, username: configuration.username,
            password: configuration.password, database: configuration.database)
        replication.options = configuration.options
        replication.options.tlsServerName = configuration.options.tlsServerName ?? configuration.host
        replication.options.additionalStartupParameters.append(("replication", "database"))
        let connection: PostgresConnection
        do {
            connection = try await PostgresConnection.connect(
                on: channel.eventLoop, configuration: replication, id: 0, logger: _silentLogger)
        } catch {
            try? await channel.close()
            throw error
        }
        let command = """
            START_REPLICATION SLOT "\(slot)" LOGICAL \(_FeedReader.lsn(position)) \
            ("proto_version" '1', "publication_names" '\(publication.sql.replacingOccurrences(of: "'", with: "''"))')
            """
        do {
            let (handler, messages) = try await channel.eventLoop.submit {
                try install(command: command, position: position, interval: TimeAmount(interval), on: channel)
            }.get()
            return _ReplicationStream(connection: connection, handler: handler, messages: messages)
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// A channel to the server `configuration` names: a TCP connection or a Unix socket, not yet spoken on.
    private static func connect(_ configuration: PostgresConnection.Configuration) async throws -> any Channel {
        let bootstrap = ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(configuration.options.connectTimeout)
        if let path = configuration.unixSocketPath {
            return try await bootstrap.connect(unixDomainSocketPath: path).get()
        }
        // The feed's initializer requires a host or a socket path.
        return try await bootstrap.channelOption(.tcpOption(.tcp_nodelay), value: 1)
            .connect(host: configuration.host ?? "localhost", port: configuration.port ?? 5432).get()
    }

    /// Puts the handler after the TLS handler (first without TLS) and sends `command`. On the event loop.
    private static func install(
        command: String, position: UInt64, interval: TimeAmount, on channel: any Channel
    ) throws -> (NIOLoopBound<_ReplicationHandler>, Messages) {
        let handler = _ReplicationHandler(command: command, position: position, interval: interval)
        let bound = NIOLoopBound(handler, eventLoop: channel.eventLoop)
        let made = Messages.makeSequence(
            backPressureStrategy: .init(lowWatermark: 256, highWatermark: 4096), finishOnDeinit: true,
            delegate: Delegate(handler: bound))
        handler.source = made.source
        let pipeline = channel.pipeline.syncOperations
        if let tls = try? pipeline.handler(type: NIOSSLClientHandler.self) {
            try pipeline.addHandler(handler, position: .after(tls))
        } else {
            try pipeline.addHandler(handler, position: .first)
        }
        return (bound, made.sequence)
    }

    /// Confirms `position` (the slot's confirmed position moves there), and asks the server for a keepalive at once
    /// when `replyRequested`.
    func confirm(_ position: UInt64, replyRequested: Bool = false) {
        handler.eventLoop.execute { [handler] in
            handler.value.sendStatus(position: position, replyRequested: replyRequested)
        }
    }

    /// Hands the reading task what arrived, then a ``Message/wake``.
    func wake() {
        handler.eventLoop.execute { [handler] in handler.value.yield(.wake) }
    }

    /// Ends the stream and closes the connection (the server's walsender exits, and the slot is free).
    func close() async {
        try? await connection.close()
    }
}
