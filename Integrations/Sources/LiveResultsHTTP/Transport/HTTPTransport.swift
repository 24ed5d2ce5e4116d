import Foundation

/// What sends a request and hands back its answer: the one seam between typed requests and a networking
/// library.
///
/// ``HTTPAPIClient`` builds an ``HTTPTransportRequest`` from a typed request, and reads the
/// ``HTTPTransportResponse``; everything between is the transport's. Two come with the library:
/// ``URLSessionTransport`` (Foundation; `FoundationNetworking` on Linux) and ``AsyncHTTPClientTransport``
/// (SwiftNIO's `AsyncHTTPClient`, for services). A test replaces it with one of its own (to count the
/// attempts of a retry, or to answer from recordings), as Postie replaces its session.
///
/// A transport follows redirects, and reports a request that took longer than its
/// ``HTTPTransportRequest/timeout`` as ``HTTPAPIError/timedOut(_:)``, and any other failure to exchange
/// the request as ``HTTPAPIError/transport(_:)``. It never throws for a status: every status is an
/// answer.
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the whole answer.
    ///
    /// - Parameter request: The request.
    /// - Returns: The status, headers and body.
    func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse

    /// Sends `request` and returns the answer's head as soon as it arrives, with its body as a stream of
    /// chunks (for Server-Sent Events). Cancelling the task that reads the body closes the connection.
    ///
    /// - Parameter request: The request; its ``HTTPTransportRequest/timeout`` applies to the head only.
    /// - Returns: The status, headers and the body's chunks.
    func stream(_ request: HTTPTransportRequest) async throws -> HTTPTransportStream
}

/// A request as a transport sends it.
public struct HTTPTransportRequest: Sendable {
    /// The method.
    public var method: RequestMethod
    /// The whole URL, query included.
    public var url: URL
    /// The headers, in order (`Content-Type` included when there is a body).
    public var headers: [HTTPHeader]
    /// The body, if any.
    public var body: Data?
    /// How long the exchange may take before it fails with ``HTTPAPIError/timedOut(_:)``.
    public var timeout: Duration

    /// Creates a request.
    public init(
        method: RequestMethod, url: URL, headers: [HTTPHeader] = [], body: Data? = nil,
        timeout: Duration = .seconds(30)
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An answer as a transport received it.
public struct HTTPTransportResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The headers.
    public var headers: [HTTPHeader]
    /// The body (empty when there is none).
    public var body: Data

    /// Creates an answer.
    public init(status: Int, headers: [HTTPHeader] = [], body: Data = Data()) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// An answer whose body is still arriving.
public struct HTTPTransportStream: Sendable {
    /// The status code.
    public var status: Int
    /// The headers.
    public var headers: [HTTPHeader]
    /// The body's chunks as they arrive; it ends with the body, or throws when the connection fails.
    public var body: AsyncThrowingStream<Data, any Error>

    /// Creates a streaming answer.
    public init(status: Int, headers: [HTTPHeader], body: AsyncThrowingStream<Data, any Error>) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}
