import LiveResults
import LiveResultsServing
import NIOCore
import NIOWebSocket
import Vapor

/// Vapor's WebSocket as the core's sending side.
struct _WebSocketWriter: _WebSocketOutbound {
    let socket: WebSocket

    /// The buffer itself as the frame's data (the `String` overload copies it into a buffer of its own).
    func send(text: ByteBuffer) async throws {
        let sent = socket.eventLoop.makePromise(of: Void.self)
        socket.send(text, opcode: .text, fin: true, promise: sent)
        try await sent.futureResult.get()
    }

    /// Closes with `code`. WebSocketKit's close frame carries the code alone: `reason` is not sent.
    func close(code: Int, reason: String) async throws {
        try await socket.close(code: WebSocketErrorCode(codeNumber: code))
    }

    /// Serves `routes`' WebSocket stream on `socket` until the client or the server closes it; closes it with
    /// 1000 (normal closure) if the stream ended without closing it, as Hummingbird does.
    ///
    /// The socket is pinged every `interval` (the streams' heartbeat), as Hummingbird pings its WebSockets:
    /// WebSocketKit sends no ping unless told, and a quiet stream would otherwise look idle to a proxy, or to
    /// the server's own idle timeout, which closes it.
    ///
    /// Called on the socket's event loop as it is upgraded, where WebSocketKit takes its callbacks: the client's
    /// messages are watched before any can arrive. The stream runs in a task of its own, as Vapor runs its
    /// asynchronous WebSocket handlers.
    static func serve<Entity: FetchableEntity & Codable>(
        _ routes: _LiveRoutes<Entity>, _ request: LiveResultsRequest, on socket: WebSocket,
        pingingEvery interval: Duration
    ) {
        let ping = interval.components
        socket.pingInterval = .nanoseconds(ping.seconds * 1_000_000_000 + ping.attoseconds / 1_000_000_000)
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
