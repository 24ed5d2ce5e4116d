import NIOConcurrencyHelpers
import NIOCore

/// Tells a stream that its client went away, from the client's connection: the end of its input (the client
/// closed its side; Hummingbird allows half-closed connections, so the event reaches only a handler, which then
/// closes the channel) or the channel's close. Added last in the pipeline by the route, before the response
/// starts, so that a client that leaves while the stream sets up is seen too; removed when the stream ends.
final class _ClientDeparture: ChannelInboundHandler, RemovableChannelHandler, Sendable {
    typealias InboundIn = Never

    private enum State {
        /// The client is there; the stream's callback, once it has given one.
        case present(callback: (@Sendable () -> Void)?)
        case departed
    }

    private let state = NIOLockedValueBox(State.present(callback: nil))
    private let channel: any Channel
    private let slot: _StreamSlot

    private init(_ channel: any Channel, slot: _StreamSlot) {
        self.channel = channel
        self.slot = slot
    }

    /// Starts watching `channel`'s client, whose stream holds `slot`: the slot is released as soon as the
    /// client goes away.
    static func watch(_ channel: any Channel, slot: _StreamSlot) -> _ClientDeparture {
        let departure = _ClientDeparture(channel, slot: slot)
        channel.pipeline.addHandler(departure).whenFailure { _ in departure.depart() }
        // The close, from the channel itself: Hummingbird's connection state handler does not pass
        // `channelInactive` on down the pipeline (a connection reset arrives that way).
        channel.closeFuture.whenComplete { _ in departure.depart() }
        return departure
    }

    /// Calls `callback` once the client goes away, at once if it has.
    func onDeparture(_ callback: @escaping @Sendable () -> Void) {
        let departed = state.withLockedValue { state in
            guard case .present = state else { return true }
            state = .present(callback: callback)
            return false
        }
        if departed { callback() }
    }

    /// Stops watching: the stream has ended, and its slot with it (the channel's close callback keeps this
    /// object, and the slot, until the connection closes).
    func stop() {
        state.withLockedValue { $0 = .present(callback: nil) }
        slot.release()
        channel.pipeline.removeHandler(self, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case ChannelEvent.inputClosed = event {
            depart()
            // The stream may be waiting in a write that a client which stopped reading never takes, and would
            // only see its departure after it: closing fails that write, so the stream, its window and its query
            // end now rather than outlive the slot they just gave back.
            context.close(promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func depart() {
        slot.release()
        let callback = state.withLockedValue { state -> (@Sendable () -> Void)? in
            guard case .present(let callback) = state else { return nil }
            state = .departed
            return callback
        }
        callback?()
    }
}
