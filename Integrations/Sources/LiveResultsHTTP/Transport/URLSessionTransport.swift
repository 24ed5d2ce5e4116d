import Foundation
import NIOConcurrencyHelpers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport over Foundation's `URLSession` (`FoundationNetworking` on Linux): the default of
/// ``HTTPAPIClient``, with no event loop of its own.
///
/// Each exchange runs in an ephemeral session of its own (no shared cookies or cache), which follows
/// redirects. Its ``HTTPTransportRequest/timeout`` bounds the whole exchange of ``send(_:)``, body included,
/// and the wait for the head of ``stream(_:)``, as ``AsyncHTTPClientTransport``'s does.
public struct URLSessionTransport: HTTPTransport {
    /// The most bytes of a body read by ``send(_:)``: 64 MiB by default. A larger body fails the exchange with
    /// ``HTTPAPIError/transport(_:)``: a server that never ends its answer must not fill the memory.
    public var maximumBodySize: Int

    /// A transport with ephemeral sessions.
    ///
    /// - Parameter maximumBodySize: The most bytes of a body read by ``send(_:)``.
    public init(maximumBodySize: Int = 64 * 1_024 * 1_024) {
        self.maximumBodySize = maximumBodySize
    }

    /// Sends `request` and reads the whole answer.
    ///
    /// - Complexity: O(*b*) for *b* bytes of body.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let start = ContinuousClock.now
        let answer = try await exchange(request, idleTimeout: request.timeout)
        let body = try await _racingDeadline(of: request.timeout, since: start) { [maximumBodySize] in
            var body = Data()
            for try await chunk in answer.body {
                guard chunk.count <= maximumBodySize - body.count else {
                    throw HTTPAPIError.transport("the answer's body is larger than \(maximumBodySize) bytes")
                }
                body.append(chunk)
            }
            return body
        }
        return HTTPTransportResponse(status: answer.status, headers: answer.headers, body: body)
    }

    /// Sends `request` and streams the answer's body: the head within the request's timeout, then the body for as
    /// long as it lasts.
    public func stream(_ request: HTTPTransportRequest) async throws -> HTTPTransportStream {
        try await exchange(request, idleTimeout: .seconds(24 * 3_600))
    }

    private func exchange(_ request: HTTPTransportRequest, idleTimeout: Duration) async throws -> HTTPTransportStream {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method.rawValue
        for header in request.headers {
            urlRequest.addValue(header.value, forHTTPHeaderField: header.name)
        }
        urlRequest.httpBody = request.body
        urlRequest.timeoutInterval =
            Double(idleTimeout.components.seconds) + 1e-18 * Double(idleTimeout.components.attoseconds)
        let delegate = _SessionDelegate(timeout: request.timeout)
        let session = URLSession(configuration: .ephemeral, delegate: delegate, delegateQueue: nil)
        let task = session.dataTask(with: urlRequest)
        delegate.body.onTermination = { _ in
            task.cancel()
            session.finishTasksAndInvalidate()
        }
        // `URLSession`'s timeout is a wait for the next bytes, long for a stream: a server that accepts the
        // connection and never answers is bounded here.
        let timer = Task { [timeout = request.timeout] in
            guard (try? await Task.sleep(for: timeout)) != nil else { return }
            if delegate.failHead(with: HTTPAPIError.timedOut(timeout)) { task.cancel() }
        }
        defer { timer.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delegate.awaitHead(continuation)
                task.resume()
            }
        } onCancel: {
            task.cancel()
        }
    }
}

/// Receives one exchange's events from `URLSession`: the head once, then the body's chunks.
///
/// The session calls it on its own serial queue; what it shares with the caller is behind a lock.
final class _SessionDelegate: NSObject, URLSessionDataDelegate, Sendable {
    private struct Waiting {
        var continuation: CheckedContinuation<HTTPTransportStream, any Error>?
    }

    private let waiting = NIOLockedValueBox(Waiting())
    private let stream: AsyncThrowingStream<Data, any Error>
    let body: AsyncThrowingStream<Data, any Error>.Continuation
    private let timeout: Duration

    init(timeout: Duration) {
        (stream, body) = AsyncThrowingStream<Data, any Error>.makeStream()
        self.timeout = timeout
    }

    func awaitHead(_ continuation: CheckedContinuation<HTTPTransportStream, any Error>) {
        waiting.withLockedValue { $0.continuation = continuation }
    }

    /// Takes the waiting caller's continuation, once.
    private func takeContinuation() -> CheckedContinuation<HTTPTransportStream, any Error>? {
        waiting.withLockedValue { state in
            defer { state.continuation = nil }
            return state.continuation
        }
    }

    /// Fails the wait for the head with `error`, unless the head came first.
    ///
    /// - Returns: Whether the caller was still waiting.
    func failHead(with error: any Error) -> Bool {
        guard let continuation = takeContinuation() else { return false }
        continuation.resume(throwing: error)
        body.finish(throwing: error)
        return true
    }

    /// Hands the head to the waiting caller, once.
    private func deliverHead(_ response: URLResponse?) {
        guard let continuation = takeContinuation() else { return }
        guard let response = response as? HTTPURLResponse else {
            continuation.resume(throwing: HTTPAPIError.transport("the answer is not HTTP"))
            return
        }
        let headers = response.allHeaderFields.compactMap { name, value -> HTTPHeader? in
            guard let name = name as? String, let value = value as? String else { return nil }
            return HTTPHeader(name: name, value: value)
        }
        continuation.resume(returning: HTTPTransportStream(status: response.statusCode, headers: headers, body: stream))
    }

    /// The head as soon as it arrives: an event stream's first event may be long in coming.
    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        deliverHead(response)
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        deliverHead(dataTask.response)
        body.yield(data)
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let error else {
            deliverHead(task.response)
            body.finish()
            session.finishTasksAndInvalidate()
            return
        }
        let mapped: any Error
        if let error = error as? URLError, error.code == .timedOut {
            mapped = HTTPAPIError.timedOut(timeout)
        } else if let error = error as? URLError, error.code == .cancelled {
            mapped = CancellationError()
        } else {
            mapped = HTTPAPIError.transport(String(describing: error))
        }
        takeContinuation()?.resume(throwing: mapped)
        body.finish(throwing: mapped)
        session.finishTasksAndInvalidate()
    }
}
