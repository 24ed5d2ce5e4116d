import LiveResults
import NIOCore

/// The sending side of a WebSocket as the core drives it; each adapter wraps its framework's.
package protocol _WebSocketOutbound: Sendable {
    /// Sends one text message of `text`'s bytes (UTF-8), sending the buffer itself: one update's encoding goes to
    /// every stream that sends it, uncopied.
    func send(text: ByteBuffer) async throws
    /// Closes the WebSocket with `code` (1001 going away, 1008 policy violation, 1013 try again later) and
    /// `reason`.
    func close(code: Int, reason: String) async throws
}

/// A WebSocket stream of a controller's updates: one text message per update. The stream only sends: a
/// client's data message is a policy violation, answered by closing with code 1008.
enum _WebSocketUpdates {
    /// Sends the source's updates since `version` to `outbound` until the client or the server closes,
    /// holding `slot` while it does; `inbound` is the client's messages, which end when it closes.
    static func serve<Entity>(
        _ source: _UpdatesSource<Entity>, since version: ResultsVersion?, slot: _StreamSlot,
        encoder: _UpdateEncoder<Entity>, options: LiveResultsOptions,
        inbound: some AsyncSequence, outbound: some _WebSocketOutbound
    ) async throws {
        // The stream has ended: its slot is free now, whoever still holds the upgrade's handler.
        defer { slot.release() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                try await send(source, since: version, slot: slot, encoder: encoder, options: options, to: outbound)
            }
            // The client's side: it ends when the client closes; any message it sends ends the stream.
            for try await _ in inbound {
                try await outbound.close(code: 1008, reason: "this stream only sends")
                break
            }
            group.cancelAll()
        }
    }

    private static func send<Entity>(
        _ source: _UpdatesSource<Entity>, since version: ResultsVersion?, slot: _StreamSlot,
        encoder: _UpdateEncoder<Entity>, options: LiveResultsOptions, to outbound: some _WebSocketOutbound
    ) async throws {
        try await _StreamEvent.withEvents(
            of: source, since: version, options: options, heartbeats: nil, departure: nil, slot: slot
        ) { events in
            while let event = await events.next() {
                switch event {
                case .update(let update):
                    // The JSON the encoder built once for every stream that sends this update.
                    let text = try await encoder.encoded(update).json
                    try await outbound.send(text: text)
                    slot.endpoint.metrics.sentUpdate(bytes: text.readableBytes)
                case .heartbeat, .source:
                    // A WebSocket carries updates only: the automatic ping keeps it open, and the source's
                    // status has no message of its own here.
                    continue
                case .shutdown:
                    try await outbound.close(code: 1001, reason: "the server is shutting down")
                    return
                }
            }
        }
    }
}
