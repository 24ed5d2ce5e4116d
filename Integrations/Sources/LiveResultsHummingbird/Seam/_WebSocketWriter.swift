import HummingbirdWebSocket
import LiveResultsServing
import NIOCore
import NIOWebSocket

/// Hummingbird-WebSocket's outbound writer as the core's sending side.
struct _WebSocketWriter: _WebSocketOutbound {
    let outbound: WebSocketOutboundWriter

    /// The most bytes in a frame: Hummingbird's default `maxFrameSize`, at which `writeTextMessage` splits a
    /// message too, and the frame limit of its clients by default.
    static var maximumFrameSize: Int { 1 << 14 }

    /// The buffer in frames of at most ``maximumFrameSize`` bytes, slices of it uncopied (`writeTextMessage` takes a
    /// `String`, which it copies into a buffer of its own for each stream).
    func send(text: ByteBuffer) async throws {
        var rest = text
        var opcode = WebSocketOpcode.text
        while rest.readableBytes > Self.maximumFrameSize, let slice = rest.readSlice(length: Self.maximumFrameSize) {
            try await outbound.write(.custom(WebSocketFrame(fin: false, opcode: opcode, data: slice)))
            opcode = .continuation
        }
        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: opcode, data: rest)))
    }

    func close(code: Int, reason: String) async throws {
        try await outbound.close(WebSocketErrorCode(codeNumber: code), reason: reason)
    }
}
