import NIOCore

/// Tells a stream that its client went away, from the client's connection: the end of its input (the client
/// closed its side; Hummingbird allows half-closed connections, so the channel itself stays open) or the
/// channel's close. Added last in the pipeline while the stream runs.
final class _ClientDeparture: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Never

    private let departed: @Sendable () -> Void

    private init(_ departed: @escaping @Sendable () -> Void) {
        self.departed = departed
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event { departed() }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        departed()
        context.fireChannelInactive()
    }

    /// Calls `departed` when `channel`'s client goes away (at once if the channel is closed already), until
    /// the returned function is called.
    static func watch(_ channel: any Channel, departed: @escaping @Sendable () -> Void) -> @Sendable () -> Void {
        let handler = _ClientDeparture(departed)
        channel.pipeline.addHandler(handler).whenComplete { result in
            if case .failure = result { departed() }
        }
        if !channel.isActive { departed() }
        return { channel.pipeline.removeHandler(handler, promise: nil) }
    }
}
