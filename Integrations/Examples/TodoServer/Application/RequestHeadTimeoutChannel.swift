import HummingbirdCore
import Logging
import NIOCore

/// A server child channel that closes a connection whose first request head has not ended within a bound,
/// then is `Base`.
///
/// Hummingbird's `idleTimeout` starts only once a request head has been read: with WebSocket upgrades the
/// HTTP handlers are added when the head decides the connection is not a WebSocket. A client that sends
/// half a head, or nothing, would hold its connection (and a file descriptor) for ever; thousands of them
/// were seen holding 150 MB. The handler this adds, first in the pipeline, ends that.
struct RequestHeadTimeoutChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let timeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.flatSubmit { [base, timeout] in
            do {
                try channel.pipeline.syncOperations.addHandler(FirstRequestHeadTimeout(timeout: timeout))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return base.setup(channel: channel, logger: logger)
        }
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: logger)
    }
}

/// Closes the connection unless the bytes it receives hold the end of a request head (an empty line)
/// within `timeout`; then steps aside.
final class FirstRequestHeadTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let endOfHead: [UInt8] = Array("\r\n\r\n".utf8)
    private let timeout: TimeAmount
    private var timer: Scheduled<Void>?
    /// The last bytes received, which an end of head split across reads starts in.
    private var tail: [UInt8] = []

    init(timeout: TimeAmount) {
        self.timeout = timeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = tail + unwrapInboundIn(data).readableBytesView
        context.fireChannelRead(data)
        guard bytes.firstRange(of: Self.endOfHead) != nil else {
            tail = Array(bytes.suffix(Self.endOfHead.count - 1))
            return
        }
        timer?.cancel()
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    private func start(_ context: ChannelHandlerContext) {
        guard timer == nil else { return }
        let channel = context.channel
        timer = context.eventLoop.scheduleTask(in: timeout) { channel.close(promise: nil) }
    }
}
