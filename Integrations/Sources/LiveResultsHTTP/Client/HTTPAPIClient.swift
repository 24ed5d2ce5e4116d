import Foundation

/// Sends typed requests (``APIRequest``) to one server, through a transport, and reads their typed
/// responses.
///
/// ```swift
/// let client = HTTPAPIClient(baseURL: URL(string: "http://127.0.0.1:8080")!)
/// let created = try await client.send(CreateTodo(body: NewTodo(title: "Milk", project: "Home", priority: 1)))
/// ```
///
/// A client is a value: copy it to change its ``timeout`` or ``headers``, share it between tasks.
///
/// A response that has a ``ResponseErrorBody`` is returned for every status, with its error body set
/// when the status is not 2xx or 3xx (Postie's behaviour); one without throws
/// ``HTTPAPIError/unacceptableStatus(_:body:)`` for those. ``send(_:requiringSuccess:)`` with
/// `requiringSuccess` throws for them in every case: the fetch definitions and mutations use it.
public struct HTTPAPIClient: Sendable {
    /// The URL that request paths are relative to (with or without a path, and a trailing slash).
    public var baseURL: URL
    /// What sends the requests.
    public var transport: any HTTPTransport
    /// The encoders and decoders of bodies.
    public var coding: HTTPCoding
    /// How long one request may take: 30 seconds by default.
    public var timeout: Duration
    /// Headers sent with every request, before the request's own.
    public var headers: [HTTPHeader]

    /// A client for the server at `baseURL`.
    ///
    /// - Parameters:
    ///   - baseURL: The URL that paths are relative to.
    ///   - transport: What sends the requests; a ``URLSessionTransport`` by default.
    ///   - coding: The encoders and decoders of bodies.
    ///   - timeout: How long one request may take.
    ///   - headers: Headers sent with every request.
    public init(
        baseURL: URL, transport: any HTTPTransport = URLSessionTransport(), coding: HTTPCoding = HTTPCoding(),
        timeout: Duration = .seconds(30), headers: [HTTPHeader] = []
    ) {
        self.baseURL = baseURL
        self.transport = transport
        self.coding = coding
        self.timeout = timeout
        self.headers = headers
    }

    /// The request as it is sent: method, URL, headers and body; nothing is sent.
    ///
    /// - Throws: ``HTTPAPIError/unfilledPathParameter(name:path:)``, ``HTTPAPIError/invalidURL(_:)``,
    ///   ``HTTPAPIError/unencodableBody(_:)``.
    /// - Complexity: O(*p* + *b*) for *p* properties and *b* bytes of body.
    public func transportRequest(for request: some APIRequest) throws -> HTTPTransportRequest {
        let parts = try _RequestParts(of: request)
        var headers = self.headers + parts.headers
        let body = try request.encodedBody(using: coding)
        if let body, headers.value(named: "Content-Type") == nil {
            headers.append(HTTPHeader(name: "Content-Type", value: body.contentType))
        }
        return HTTPTransportRequest(
            method: parts.method, url: try parts.url(relativeTo: baseURL), headers: headers, body: body?.data,
            timeout: timeout)
    }

    /// Sends `request` and reads its response.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - requiringSuccess: Whether a status that is not 2xx or 3xx throws even when the response has a
    ///     ``ResponseErrorBody`` (`false` by default: it is set instead of the body).
    /// - Returns: The response, its wrappers filled.
    /// - Throws: An ``HTTPAPIError`` that says what failed; `CancellationError` when cancelled.
    /// - Complexity: O(*b*) for *b* bytes of body, plus the exchange.
    @discardableResult
    public func send<Request: APIRequest>(
        _ request: Request, requiringSuccess: Bool = false
    ) async throws -> Request.Response {
        let answer = try await transport.send(try transportRequest(for: request))
        let context = _ResponseContext(response: answer, coding: coding)
        let response = try context.decode(Request.Response.self)
        if !context.isSuccess && (requiringSuccess || !context.readsErrorBody) {
            throw HTTPAPIError.unacceptableStatus(answer.status, body: HTTPAPIError.excerpt(answer.body))
        }
        return response
    }
}
