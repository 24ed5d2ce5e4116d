import LiveResults
import LiveResultsServing
import NIOWebSocket
import Vapor

/// Vapor's WebSocket as the core's sending side.
struct _WebSocketWriter: _WebSocketOutbound {
    let socket: WebSocket

    func send(text: String) async throws {
        try await socket.send(text)
    }

    /// Closes with `code`. WebSocketKit's close frame carries the code alone: `reason` is not sent.
    func close(code: Int, reason: String) async throws {
        try await socket.close(code: WebSocketErrorCode(codeNumber: code))
    }

    /// Serves `routes`' WebSocket stream on `socket` until the client or the server closes it; closes it with
    /// 1000 (normal closure) if the stream ended without closing it, as Hummingbird does.
    ///
    /// Called on the socket's event loop as it is upgraded, where WebSocketKit takes its callbacks: the client's
    /// messages are watched before any can arrive. The stream runs in a task of its own, as Vapor runs its
    /// asynchronous WebSocket handlers.
    static func serve<Entity: FetchableEntity & Codable>(
        _ routes: _LiveRoutes<Entity>, _ request: LiveResultsRequest, on socket: WebSocket
    ) {
        // The client's messages: any one ends the stream (it only sends); the sequence ends when the client closes.
        let (inbound, client) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        socket.onText { _, _ in client.yield() }
        socket.onBinary { _, _ in client.yield() }
        socket.onClose.whenComplete { _ in client.finish() }
        Task {
            try? await routes.serveWebSocket(request, inbound: inbound, outbound: _WebSocketWriter(socket: socket))
            if !socket.isClosed { try? await socket.close(code: .normalClosure) }
        }
    }
}
