import Hummingbird
import HummingbirdWebSocket
import NIOCore

/// A request context that gives the routes of `addLiveResults(_:at:options:)` its connection's channel,
/// so that a stream whose client goes away ends, and frees its slot, at once.
///
/// Without it a Server-Sent Events stream learns that its client left only when a write fails: at the next
/// update or heartbeat (`LiveResultsOptions/heartbeatInterval`, 15 seconds by default), and meanwhile its
/// slot counts against `LiveResultsOptions/maximumStreams`. ``LiveResultsRequestContext`` conforms.
///
/// - Complexity: The stream watches its channel with one channel handler, added when it starts and removed
///   when it ends.
public protocol LiveResultsChannelContext: RequestContext {
    /// The channel of the request's connection.
    var channel: any Channel { get }
}

/// The context of a router with live results and WebSockets: Hummingbird-WebSocket's
/// `BasicWebSocketRequestContext`, plus the connection's channel (see ``LiveResultsChannelContext``).
///
/// ```swift
/// let router = Router(context: LiveResultsRequestContext.self)
/// router.addLiveResults(controller, at: "todos")
/// let app = Application(router: router, server: .http1WebSocketUpgrade(webSocketRouter: router))
/// ```
public struct LiveResultsRequestContext: RequestContext, WebSocketRequestContext, LiveResultsChannelContext {
    /// Hummingbird's storage of the request's parameters, logger and limits.
    public var coreContext: CoreRequestContextStorage
    /// The WebSocket handler of an upgraded request.
    public let webSocket: WebSocketHandlerReference<Self>
    /// The channel of the request's connection.
    public let channel: any Channel

    /// The context of a request that `source` received.
    ///
    /// - Complexity: O(1).
    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        webSocket = .init()
        channel = source.channel
    }
}
