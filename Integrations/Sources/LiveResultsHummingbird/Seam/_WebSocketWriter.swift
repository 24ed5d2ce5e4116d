import HummingbirdWebSocket
import LiveResultsServing
import NIOWebSocket

/// Hummingbird-WebSocket's outbound writer as the core's sending side.
struct _WebSocketWriter: _WebSocketOutbound {
    let outbound: WebSocketOutboundWriter

    func send(text: String) async throws {
        try await outbound.writeTextMessage(text)
    }

    func close(code: Int, reason: String) async throws {
        try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
    }
}
