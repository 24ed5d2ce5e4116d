import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// A transport over SwiftNIO's `AsyncHTTPClient`: the one for services (an event loop, connection pools,
/// no Foundation networking).
///
/// ```swift
/// let client = HTTPAPIClient(baseURL: url, transport: AsyncHTTPClientTransport())   // HTTPClient.shared
/// ```
///
/// The `HTTPClient` follows redirects as configured (`HTTPClient.shared` follows up to 5); the client is
/// the caller's to shut down (`HTTPClient.shared` needs none).
public struct AsyncHTTPClientTransport: HTTPTransport {
    /// The client that sends the requests.
    public let client: HTTPClient
    /// The most bytes of a body read by ``send(_:)``: 64 MiB by default.
    public var maximumBodySize: Int

    /// A transport over `client`.
    ///
    /// - Parameters:
    ///   - client: The client; `HTTPClient.shared` by default.
    ///   - maximumBodySize: The most bytes of a body read by ``send(_:)``.
    public init(client: HTTPClient = .shared, maximumBodySize: Int = 64 * 1_024 * 1_024) {
        self.client = client
        self.maximumBodySize = maximumBodySize
    }

    /// Sends `request` and reads the whole answer.
    ///
    /// The request's timeout bounds the whole exchange, body included. A refused connection is retried by
    /// the client's connection pool until then, and reported as ``HTTPAPIError/transport(_:)`` (or
    /// ``HTTPAPIError/timedOut(_:)`` when the pool has not given up).
    ///
    /// - Complexity: O(*b*) for *b* bytes of body.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        try await Self.mapErrors(request.timeout) {
            // The client's deadline ends with the head (its connection errors included); the rest of the
            // timeout bounds the body.
            let start = ContinuousClock.now
            let response = try await client.execute(
                try Self.clientRequest(request), timeout: Self.timeAmount(request.timeout))
            let body = try await _racingDeadline(of: request.timeout, since: start) { [maximumBodySize] in
                try await response.body.collect(upTo: maximumBodySize)
            }
            return HTTPTransportResponse(
                status: Int(response.status.code), headers: Self.headers(response.headers),
                body: Data(body.readableBytesView))
        }
    }

    /// Sends `request` and streams the answer's body.
    public func stream(_ request: HTTPTransportRequest) async throws -> HTTPTransportStream {
        let response = try await Self.mapErrors(request.timeout) {
            // The client's deadline ends when the head arrives: the body streams for as long as it lasts.
            try await client.execute(try Self.clientRequest(request), timeout: Self.timeAmount(request.timeout))
        }
        let body = response.body
        let (stream, continuation) = AsyncThrowingStream<Data, any Error>.makeStream()
        let reader = Task {
            do {
                for try await chunk in body {
                    continuation.yield(Data(chunk.readableBytesView))
                }
                continuation.finish()
            } catch {
                continuation.finish(throwing: HTTPAPIError.transport(String(describing: error)))
            }
        }
        continuation.onTermination = { _ in reader.cancel() }
        return HTTPTransportStream(
            status: Int(response.status.code), headers: Self.headers(response.headers), body: stream)
    }

    private static func timeAmount(_ timeout: Duration) -> TimeAmount {
        let (seconds, attoseconds) = timeout.components
        return .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }

    private static func clientRequest(_ request: HTTPTransportRequest) throws -> HTTPClientRequest {
        var clientRequest = HTTPClientRequest(url: request.url.absoluteString)
        clientRequest.method = HTTPMethod(rawValue: request.method.rawValue)
        for header in request.headers {
            clientRequest.headers.add(name: header.name, value: header.value)
        }
        if let body = request.body {
            clientRequest.body = .bytes(ByteBuffer(bytes: body))
        }
        return clientRequest
    }

    private static func headers(_ headers: HTTPHeaders) -> [HTTPHeader] {
        headers.map { HTTPHeader(name: $0.name, value: $0.value) }
    }

    /// Runs `body`, turning the client's deadline into ``HTTPAPIError/timedOut(_:)`` and its other failures
    /// into ``HTTPAPIError/transport(_:)``.
    private static func mapErrors<Value>(
        _ timeout: Duration, _ body: () async throws -> Value
    ) async throws -> Value {
        do {
            return try await body()
        } catch let error as HTTPAPIError {
            throw error
        } catch let error as HTTPClientError
            where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout
        {
            throw HTTPAPIError.timedOut(timeout)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            throw HTTPAPIError.transport(String(describing: error))
        }
    }
}
