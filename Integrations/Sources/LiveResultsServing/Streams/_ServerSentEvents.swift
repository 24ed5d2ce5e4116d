import Foundation
import HTTPTypes
import LiveResults
import NIOCore

/// A Server-Sent Events stream of a controller's updates: `id:` the version, `data:` the update's JSON.
enum _ServerSentEvents {
    /// The response that streams the source's updates since `version`, holding `slot` while it does, with a
    /// heartbeat from `heartbeats` after a silence; with `departure`, it ends as soon as the client goes away.
    static func response<Entity>(
        _ source: _UpdatesSource<Entity>, since version: ResultsVersion?, slot: _StreamSlot,
        encoder: _UpdateEncoder<Entity>, options: LiveResultsOptions, heartbeats: _HeartbeatTicker,
        departure: _ClientDeparture?
    ) -> LiveResultsStreamResponse {
        var headers = HTTPFields()
        headers[.contentType] = "text/event-stream"
        headers[.cacheControl] = "no-cache"
        // Tells nginx-style proxies not to buffer the stream.
        headers[HTTPField.Name("X-Accel-Buffering")!] = "no"
        return LiveResultsStreamResponse(headers: headers) { write in
            // The stream has ended: its slot is free now, whoever still holds this response.
            defer { slot.release() }
            try await stream(
                source, since: version, encoder: encoder, options: options, heartbeats: heartbeats,
                departure: departure, slot: slot, write: write)
        }
    }

    // The frames every stream sends alike, built once: a tick of the heartbeat reaches every quiet stream of the
    // routes at once, and a change of the source's status every stream.
    private static let heartbeat = ByteBuffer(string: ": heartbeat\n\n")
    private static let sourceAvailable = ByteBuffer(string: "event: source\ndata: {\"available\":true}\n\n")
    private static let sourceUnavailable = ByteBuffer(string: "event: source\ndata: {\"available\":false}\n\n")

    private static func stream<Entity>(
        _ source: _UpdatesSource<Entity>, since version: ResultsVersion?,
        encoder: _UpdateEncoder<Entity>, options: LiveResultsOptions, heartbeats: _HeartbeatTicker,
        departure: _ClientDeparture?, slot: _StreamSlot, write: (ByteBuffer) async throws -> Void
    ) async throws {
        let delay = options.reconnectionDelay.components
        let milliseconds = delay.seconds * 1_000 + delay.attoseconds / 1_000_000_000_000_000
        try await write(ByteBuffer(string: "retry: \(milliseconds)\n\n"))
        try await _StreamEvent.withEvents(
            of: source, since: version, options: options, heartbeats: heartbeats, departure: departure, slot: slot
        ) { events in
            while let event = await events.next() {
                switch event {
                case .update(let update):
                    // The event the encoder built once for every stream that sends this update.
                    let frame = try await encoder.encoded(update).frame
                    try await write(frame)
                    slot.endpoint.metrics.sentUpdate(bytes: frame.readableBytes)
                case .heartbeat:
                    try await write(Self.heartbeat)
                case .source(let available):
                    try await write(available ? Self.sourceAvailable : Self.sourceUnavailable)
                case .shutdown:
                    return
                }
            }
        }
    }
}
