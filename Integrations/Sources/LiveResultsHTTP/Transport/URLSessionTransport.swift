import Foundation
import LiveResultsLockSupport

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A transport over Foundation's `URLSession` (`FoundationNetworking` on Linux): the default of
/// ``HTTPAPIClient``, with no event loop of its own.
///
/// Each exchange runs in an ephemeral session of its own (no shared cookies or cache), which follows
/// redirects. Its ``HTTPTransportRequest/timeout`` is `URLSession`'s: the longest wait for the next bytes
/// (an answer that keeps arriving is not cut).
public struct URLSessionTransport: HTTPTransport {
    /// A transport with ephemeral sessions.
    public init() {}

    /// Sends `request` and reads the whole answer.
    ///
    /// - Complexity: O(*b*) for *b* bytes of body.
    public func send(_ request: HTTPTransportRequest) async throws -> HTTPTransportResponse {
        let answer = try await exchange(request, idleTimeout: request.timeout)
        var body = Data()
        for try await chunk in answer.body {
            body.append(chunk)
        }
        return HTTPTransportResponse(status: answer.status, headers: answer.headers, body: body)
    }

    /// Sends `request` and streams the answer's body.
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

    private let waiting = PthreadLock(Waiting())
    private let stream: AsyncThrowingStream<Data, any Error>
    let body: AsyncThrowingStream<Data, any Error>.Continuation
    private let timeout: Duration

    init(timeout: Duration) {
        (stream, body) = AsyncThrowingStream<Data, any Error>.makeStream()
        self.timeout = timeout
    }

    func awaitHead(_ continuation: CheckedContinuation<HTTPTransportStream, any Error>) {
        waiting.withLock { $0.continuation = continuation }
    }

    /// Hands the head to the waiting caller, once.
    private func deliverHead(_ response: URLResponse?) {
        let continuation = waiting.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        guard let continuation else { return }
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
        let continuation = waiting.withLock { state in
            defer { state.continuation = nil }
            return state.continuation
        }
        continuation?.resume(throwing: mapped)
        body.finish(throwing: mapped)
        session.finishTasksAndInvalidate()
    }
}
