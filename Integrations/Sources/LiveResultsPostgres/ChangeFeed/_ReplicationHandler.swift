import Foundation
import NIOCore

/// Speaks PostgreSQL's streaming replication protocol on a connection that postgres-nio started (startup,
/// authentication, TLS) in replication mode: sends `START_REPLICATION`, then turns the copy stream into
/// ``_ReplicationStream/Message``s and writes the feed's standby status updates.
///
/// It sits right after the TLS handler (or first, without TLS), before postgres-nio's own handler, which never
/// sees a byte once the stream starts: postgres-nio 1.33 cannot decode `CopyBothResponse` and its copy data.
///
/// Backpressure: it stops asking the channel for reads while the reading task is behind (the sequence's high
/// watermark), so a large transaction is read as fast as it is parsed, and the server waits meanwhile.
///
/// Pacing: what arrives is handed to the reading task at once after a quiet spell, and otherwise at most once per
/// interval (the feed's ``PostgresChangeFeed/readInterval``), all that arrived meanwhile together, followed by
/// ``_ReplicationStream/Message/handOver``. While transactions keep coming, the reading task, the subscriptions'
/// tasks and the controllers then wake once per interval, not once per transaction: a few wakes of threads per
/// transaction cost more than decoding it. Until a hand-over that waits is due, the socket is not read either (the
/// server flushes each message on its own, three or more per transaction): what came meanwhile is read in one go
/// when it is due, and handed over right after that read (``drainDue``). A wait never holds more than
/// ``largeHandOver`` messages: a large transaction is read as fast as the reading task parses it.
///
/// A stream that hears nothing for ``quietBeforePing`` asks the server for a keepalive; one that hears nothing
/// for ``stallTimeout`` (a dead peer the kernel has not noticed) is closed, and the feed reconnects.
final class _ReplicationHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    typealias Source = _ReplicationStream.Messages.Source

    /// The silence after which a stream asks the server for a keepalive.
    static let quietBeforePing = TimeAmount.seconds(5)
    /// The silence after which a stream is taken for dead.
    static let stallTimeout = TimeAmount.seconds(15)
    /// How often the stream ticks: the reading task's housekeeping, and the silence checks.
    static let tickInterval = TimeAmount.seconds(1)

    /// The stream of messages, set once the sequence is made (on the event loop, right after `init`).
    var source: Source?
    private let command: String
    /// The shortest time between two hand-overs of what arrived.
    private let interval: TimeAmount
    /// What arrived since the last hand-over.
    private var arrived: [_ReplicationStream.Message] = []
    private var lastHandOver: NIODeadline?
    private var scheduledHandOver: Scheduled<Void>?
    /// Whether the read that a due hand-over resumed should be handed over as soon as it completes: it brings what
    /// the socket held while the hand-over waited.
    private var drainDue = false
    /// The most messages a hand-over waits with.
    static let largeHandOver = 512
    /// The position last sent in a status update: a ping repeats it, since a smaller one would move the slot's
    /// confirmed position back (PostgreSQL 15 takes what it is told).
    private var position: UInt64
    private var context: ChannelHandlerContext?
    private var unread: ByteBuffer?
    /// Whether the reading task keeps up: reads are asked for only then.
    private var producing = true
    /// A read the channel asked for while the reading task was behind.
    private var readPending = false
    private var lastHeard = NIODeadline.now()
    private var ticks: RepeatedTask?

    /// - Parameters:
    ///   - command: The `START_REPLICATION` command, sent once the handler is added.
    ///   - position: The slot's confirmed position.
    ///   - interval: The shortest time between two hand-overs while messages keep coming.
    init(command: String, position: UInt64, interval: TimeAmount) {
        self.command = command
        self.position = position
        self.interval = interval
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        var query = context.channel.allocator.buffer(capacity: command.utf8.count + 6)
        query.writeInteger(UInt8(ascii: "Q"))
        query.writeInteger(Int32(4 + command.utf8.count + 1))
        query.writeNullTerminatedString(command)
        context.writeAndFlush(wrapOutboundOut(query), promise: nil)
        lastHeard = .now()
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        ticks = context.eventLoop.scheduleRepeatedTask(initialDelay: Self.tickInterval, delay: Self.tickInterval) {
            _ in handler.value.tick()
        }
        if !context.channel.isActive { finish(_ReplicationStream.Closed()) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        ticks?.cancel()
        scheduledHandOver?.cancel()
        self.context = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if unread == nil || unread!.readableBytes == 0 {
            unread = bytes
        } else {
            unread!.writeBuffer(&bytes)
        }
        lastHeard = .now()
        do {
            while try readMessage() {}
        } catch {
            handOver()
            finish(error)
            context.close(promise: nil)
            return
        }
        // A buffer read to its end is let go: the next read's bytes are taken as they come, without a copy.
        if unread?.readableBytes == 0 { unread = nil }
        handOverWhenDue(context: context)
    }

    /// Hands over what arrived now if the last hand-over is an interval old, else once it is.
    private func handOverWhenDue(context: ChannelHandlerContext) {
        guard !arrived.isEmpty, scheduledHandOver == nil || arrived.count >= Self.largeHandOver else { return }
        let now = NIODeadline.now()
        guard let last = lastHandOver, now - last < interval, arrived.count < Self.largeHandOver else {
            handOver()
            return
        }
        let handler = NIOLoopBound(self, eventLoop: context.eventLoop)
        scheduledHandOver = context.eventLoop.scheduleTask(deadline: last + interval) {
            handler.value.handOverDue()
        }
    }

    /// A hand-over that waited is due: what arrived goes now, and what the socket held meanwhile right after the
    /// read that this resumes.
    private func handOverDue() {
        scheduledHandOver = nil
        drainDue = readPending && producing
        handOver()
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if drainDue {
            drainDue = false
            handOver()
        }
        context.fireChannelReadComplete()
    }

    /// Hands what arrived to the reading task, followed by ``_ReplicationStream/Message/handOver``, and reads on.
    private func handOver() {
        scheduledHandOver?.cancel()
        scheduledHandOver = nil
        if !arrived.isEmpty {
            arrived.append(.handOver)
            lastHandOver = .now()
            yield(arrived)
            arrived = []
        }
        resumeReading()
    }

    /// Passes on the read the channel asked for while reads were held, unless the reading task is behind.
    private func resumeReading() {
        guard readPending, producing, scheduledHandOver == nil, let context else { return }
        readPending = false
        context.read()
    }

    /// Reads the next whole backend message of ``unread``, and keeps it in ``arrived`` if the feed uses it.
    ///
    /// - Returns: `false` when the buffer ends before a whole message does.
    private func readMessage() throws -> Bool {
        guard var buffer = unread, let type = buffer.getInteger(at: buffer.readerIndex, as: UInt8.self),
            let length = buffer.getInteger(at: buffer.readerIndex + 1, as: Int32.self)
        else { return false }
        // PostgreSQL allocates no message over a gigabyte (`MaxAllocSize`): a longer length is not a message, and
        // waiting for its bytes would only fill the memory.
        guard (4...(1 << 30) + 1_024).contains(length) else {
            throw _PgOutputMessage.Malformed(description: "a message of \(length) bytes")
        }
        guard buffer.readableBytes >= 1 + Int(length) else { return false }
        buffer.moveReaderIndex(forwardBy: 5)
        var body = buffer.readSlice(length: Int(length) - 4)!
        unread = buffer
        switch type {
        case UInt8(ascii: "W"):
            arrived.append(.started)
        case UInt8(ascii: "d"):
            if let message = try Self.copyData(&body) { arrived.append(message) }
        case UInt8(ascii: "E"):
            throw _ReplicationStream.ServerError(fields: &body)
        case UInt8(ascii: "c"), UInt8(ascii: "C"), UInt8(ascii: "Z"):
            // The server ended the stream (CopyDone, CommandComplete, ReadyForQuery).
            throw _ReplicationStream.Closed()
        default:
            // NoticeResponse, ParameterStatus: nothing the feed uses.
            break
        }
        return true
    }

    /// XLogData (`w`: start, end, time, then one `pgoutput` message) or a primary keepalive (`k`).
    private static func copyData(_ body: inout ByteBuffer) throws -> _ReplicationStream.Message? {
        switch body.readInteger(as: UInt8.self) {
        case UInt8(ascii: "w"):
            guard body.readInteger(as: UInt64.self) != nil, body.readInteger(as: UInt64.self) != nil,
                body.readInteger(as: Int64.self) != nil
            else { throw _PgOutputMessage.Malformed(description: "a truncated XLogData message") }
            return .data(body)
        case UInt8(ascii: "k"):
            guard let end = body.readInteger(as: UInt64.self), body.readInteger(as: Int64.self) != nil,
                let reply = body.readInteger(as: UInt8.self)
            else { throw _PgOutputMessage.Malformed(description: "a truncated keepalive message") }
            return .keepalive(walEnd: end, replyRequested: reply != 0)
        default:
            return nil
        }
    }

    func read(context: ChannelHandlerContext) {
        if producing, scheduledHandOver == nil {
            context.read()
        } else {
            readPending = true
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        finish(_ReplicationStream.Closed())
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        finish(error)
        context.close(promise: nil)
    }

    /// The reading task caught up: reads resume.
    func produceMore() {
        producing = true
        lastHeard = .now()
        resumeReading()
    }

    /// The reading task stopped reading: the connection is closed.
    func terminated() {
        context?.close(promise: nil)
    }

    /// Hands `message` (a wake or a tick) to the reading task, after what arrived: a wake is for a fetch or a new
    /// subscription, which should not wait for the interval.
    func yield(_ message: _ReplicationStream.Message) {
        handOver()
        yield([message])
    }

    private func yield(_ messages: [_ReplicationStream.Message]) {
        guard !messages.isEmpty, let source else { return }
        if source.yield(contentsOf: messages) == .stopProducing { producing = false }
    }

    private func finish(_ error: any Error) {
        ticks?.cancel()
        source?.finish(error)
        source = nil
    }

    /// Writes a standby status update: `position` received, flushed and applied (the slot's confirmed
    /// position moves to it), and whether the server should answer with a keepalive at once.
    func sendStatus(position: UInt64, replyRequested: Bool) {
        guard let context else { return }
        self.position = max(self.position, position)
        var message = context.channel.allocator.buffer(capacity: 39)
        message.writeInteger(UInt8(ascii: "d"))
        message.writeInteger(Int32(4 + 1 + 8 * 4 + 1))
        message.writeInteger(UInt8(ascii: "r"))
        for _ in 0..<3 { message.writeInteger(self.position) }
        message.writeInteger(Self.postgresTimestamp())
        message.writeInteger(UInt8(replyRequested ? 1 : 0))
        context.writeAndFlush(wrapOutboundOut(message), promise: nil)
    }

    /// Every ``tickInterval``: the reading task's housekeeping, a ping after ``quietBeforePing`` of silence, and
    /// the end of a stream silent for ``stallTimeout``.
    private func tick() {
        guard let context else { return }
        if !producing { lastHeard = .now() }
        let silence = NIODeadline.now() - lastHeard
        if silence >= Self.stallTimeout {
            finish(_ReplicationStream.Stalled(silence: silence))
            context.close(promise: nil)
            return
        }
        if silence >= Self.quietBeforePing {
            sendStatus(position: position, replyRequested: true)
        }
        yield(.tick)
    }

    /// Microseconds since 2000-01-01 UTC, PostgreSQL's epoch.
    private static func postgresTimestamp() -> Int64 {
        Int64((Date().timeIntervalSince1970 - 946_684_800) * 1_000_000)
    }
}
