import Foundation
import LiveResults
import NIOConcurrencyHelpers
import LiveResultsWireSupport

/// The live results of a server, followed over its Server-Sent Events stream (the `/events` route of
/// `LiveResultsHummingbird`): a `ResultsReplica` kept up to date, with what a controller offers a UI.
///
/// ```swift
/// let todos = RemoteResults<Todo>(client: HTTPAPIClient(baseURL: server, transport: AsyncHTTPClientTransport()),
///                                 path: "todos/events")
/// let (start, subscription) = todos.observeChanges { changes, snapshot in render(snapshot, changes) }
/// let model = ObservableResults(todos.replica)   // the @Observable model, on the main actor
/// todos.start()                          // follows until stop(); or `await todos.run()` in a task of yours
/// todos.state                            // .connecting, .connected, .reconnecting(…), .failed(…)
/// ```
///
/// The first event of a stream is the whole results; then each event is one change set. When the
/// stream ends or fails, it reconnects after the ``backoff``'s wait, sending `Last-Event-ID` with the
/// replica's version: the server answers with one catch-up change set (or the whole results, which the
/// replica turns into the change set between the two), so the observers see one change set for all
/// they missed. What it cannot use is reported through `onDiagnostic` and never applied: an event cut
/// mid-way by a closed connection, an event that is not an update (another `event:` name, data that does
/// not decode), an update that does not follow the replica's version; after any of them it reconnects.
///
/// After `maximumFailures` failed attempts in a row (a refused connection, a status that is not `200`,
/// a stream that ends before its first update) it stops with ``State-swift.enum/failed(_:)``; by
/// default it retries for ever.
public final class RemoteResults<Entity: FetchableEntity & Codable>: Sendable {
    /// Where the connection stands.
    public enum State: Sendable, CustomStringConvertible {
        /// Not started.
        case idle
        /// Opening the first connection.
        case connecting
        /// Connected: updates arrive.
        case connected
        /// Waiting to reconnect after `attempt` failures in a row, the last one `lastError`.
        case reconnecting(attempt: Int, lastError: any Error)
        /// Given up after too many failures (see the initializer's `maximumFailures`).
        case failed(any Error)
        /// Stopped by ``stop()`` or by the cancellation of ``run()``.
        case stopped

        /// The state in words.
        public var description: String {
            switch self {
            case .idle: "idle"
            case .connecting: "connecting"
            case .connected: "connected"
            case .reconnecting(let attempt, let error): "reconnecting (attempt \(attempt), after \(error))"
            case .failed(let error): "failed: \(error)"
            case .stopped: "stopped"
            }
        }

        /// Whether it is ``connected``.
        public var isConnected: Bool {
            if case .connected = self { return true }
            return false
        }
    }

    /// Something that happened to the stream, reported through `onDiagnostic`; none is fatal.
    public enum Diagnostic: Sendable, CustomStringConvertible {
        /// A stream opened, resuming from `version` (`nil`: from nothing).
        case connected(resumingFrom: ResultsVersion?)
        /// An update was applied: the replica is at `version`.
        case applied(ResultsVersion)
        /// The stream ended in the middle of an event, which was dropped.
        case streamCut
        /// An event was not an update (`reason`); it was dropped.
        case invalidEvent(reason: String)
        /// An update did not apply to the replica's version; it was dropped.
        case gap(ResultsReplica<Entity>.Gap)
        /// A connection failed, or a stream ended or failed.
        case disconnected(any Error)

        /// The diagnostic in words.
        public var description: String {
            switch self {
            case .connected(let version): "connected, resuming from \(version.map(\.description) ?? "nothing")"
            case .applied(let version): "applied, at \(version)"
            case .streamCut: "the stream ended in the middle of an event"
            case .invalidEvent(let reason): "an event that is not an update: \(reason)"
            case .gap(let gap): "\(gap)"
            case .disconnected(let error): "disconnected: \(error)"
            }
        }
    }

    /// The end of a stream that closed without an error.
    public struct StreamEnded: Error, CustomStringConvertible {
        /// The failure in words.
        public var description: String { "the server ended the stream" }
    }

    /// The end of a stream that sent something it could not use (already reported as a ``Diagnostic``).
    public struct StreamDropped: Error, CustomStringConvertible {
        /// What it sent.
        public var reason: String
        /// The failure in words.
        public var description: String { "the stream was dropped: \(reason)" }
    }

    /// The client whose base URL, transport and decoders the stream uses.
    public let client: HTTPAPIClient
    /// The stream's path, relative to the client's base URL, with its query if any (`todos/events`,
    /// `todos/events?sections=project&order=priority.desc`, percent-encoded).
    public let path: String
    /// The waits between reconnections.
    public let backoff: Backoff
    /// Failed attempts in a row after which it stops; `nil` for never.
    public let maximumFailures: Int?
    /// The results as the server last sent them.
    public let replica = ResultsReplica<Entity>()

    private let onDiagnostic: @Sendable (Diagnostic) -> Void
    private let storage = NIOLockedValueBox(_RemoteStorage<Entity>())

    /// Follows the stream at `path` of `client`'s server, once started.
    ///
    /// - Parameters:
    ///   - client: The client whose base URL, transport and JSON decoder it uses.
    ///   - path: The stream's path, with its query if any, percent-encoded (`todos/events?sections=project`:
    ///     a live-queries route sections the results only when the query asks).
    ///   - backoff: The waits between reconnections; the library's default backoff by default.
    ///   - maximumFailures: Failed attempts in a row after which it stops; `nil` (the default) for never.
    ///   - onDiagnostic: Called with each ``Diagnostic``, on the task that follows the stream.
    public init(
        client: HTTPAPIClient, path: String, backoff: Backoff = .default, maximumFailures: Int? = nil,
        onDiagnostic: @escaping @Sendable (Diagnostic) -> Void = { _ in }
    ) {
        precondition(maximumFailures.map { $0 > 0 } ?? true, "at least one attempt")
        self.client = client
        self.path = path
        self.backoff = backoff
        self.maximumFailures = maximumFailures
        self.onDiagnostic = onDiagnostic
    }

    /// Where the connection stands.
    public var state: State { storage.withLockedValue { $0.state } }

    /// The results: a snapshot of the replica.
    ///
    /// - Complexity: O(1).
    public var snapshot: FetchedResultsSnapshot<Entity> { replica.snapshot }
    /// The sections of the results.
    public var sections: FetchedResultsSections<Entity> { replica.sections }
    /// The results in order.
    public var fetchedObjects: FetchedObjects<Entity> { replica.fetchedObjects }
    /// The version of the results; `nil` before the first update.
    public var version: ResultsVersion? { replica.version }

    /// Follows the stream in a task of its own until ``stop()``; calling it again while it runs does
    /// nothing. The task keeps this object alive until ``stop()`` (or until it gives up).
    public func start() {
        storage.withLockedValue { storage in
            guard storage.task == nil else { return }
            storage.task = Task { await self.run() }
        }
    }

    /// Stops following: closes the stream and ends the task of ``start()``; the state becomes
    /// ``State-swift.enum/stopped``.
    public func stop() {
        let task = storage.withLockedValue { storage in
            defer { storage.task = nil }
            return storage.task
        }
        task?.cancel()
    }

    /// Follows the stream until the task is cancelled (then the state is ``State-swift.enum/stopped``) or
    /// it gives up (``State-swift.enum/failed(_:)``).
    public func run() async {
        var failures = 0
        var lastError: (any Error)?
        while !Task.isCancelled {
            if let lastError {
                setState(.reconnecting(attempt: failures, lastError: lastError))
            } else {
                setState(.connecting)
            }
            var appliedOne = false
            do {
                try await follow { appliedOne = true }
                throw StreamEnded()
            } catch {
                if Task.isCancelled { break }
                if !(error is StreamDropped) { onDiagnostic(.disconnected(error)) }
                lastError = error
            }
            failures = appliedOne ? 1 : failures + 1
            if let maximumFailures, failures >= maximumFailures, let lastError {
                setState(.failed(lastError))
                return
            }
            if let lastError { setState(.reconnecting(attempt: failures, lastError: lastError)) }
            do {
                try await Task.sleep(for: backoff.wait(afterFailures: failures))
            } catch {
                break
            }
        }
        setState(.stopped)
    }

    /// One connection: opens the stream and applies its events until it ends (returns), fails or sends
    /// something it cannot use (throws).
    private func follow(onApplied: () -> Void) async throws {
        var request = try client.transportRequest(for: _EventStreamRequest(path: path))
        let resumePoint = replica.version
        if let resumePoint {
            request.headers.append(HTTPHeader(name: "Last-Event-ID", value: resumePoint.description))
        }
        let stream = try await client.transport.stream(request)
        let contentType = stream.headers.value(named: "Content-Type")
        guard stream.status == 200, contentType?.lowercased().hasPrefix("text/event-stream") == true else {
            throw HTTPAPIError.notAnEventStream(status: stream.status, contentType: contentType)
        }
        setState(.connected)
        onDiagnostic(.connected(resumingFrom: resumePoint))
        var parser = ServerSentEventParser()
        let decoder = client.coding.makeJSONDecoder()
        for try await chunk in stream.body {
            let events: [ServerSentEvent]
            do {
                events = try parser.feed(chunk)
            } catch {
                onDiagnostic(.invalidEvent(reason: error.description))
                throw StreamDropped(reason: error.description)
            }
            for event in events {
                // The server's optional status of its source (LiveResultsHummingbird's `LiveResultsSourceStatus`):
                // nothing for a replica to apply.
                if event.name == "source" { continue }
                guard event.name == nil || event.name == "message" || event.name == "update" else {
                    let reason = "an event named \(event.name ?? "")"
                    onDiagnostic(.invalidEvent(reason: reason))
                    throw StreamDropped(reason: reason)
                }
                let update: ResultsUpdate<Entity>
                do {
                    update = try decoder.decode(ResultsUpdate<Entity>.self, from: Data(event.data.utf8))
                } catch {
                    onDiagnostic(.invalidEvent(reason: "\(error)"))
                    throw StreamDropped(reason: "\(error)")
                }
                do {
                    try apply(update)
                } catch let gap as ResultsReplica<Entity>.Gap {
                    onDiagnostic(.gap(gap))
                    throw StreamDropped(reason: gap.description)
                } catch let invalid as ResultsReplica<Entity>.InvalidUpdate {
                    onDiagnostic(.invalidEvent(reason: invalid.reason))
                    throw StreamDropped(reason: invalid.reason)
                }
                onApplied()
                onDiagnostic(.applied(update.version))
            }
        }
        if parser.isMidEvent { onDiagnostic(.streamCut) }
    }

    /// Applies `update` to the replica, which delivers its change set to the observers.
    private func apply(_ update: ResultsUpdate<Entity>) throws {
        try replica.apply(update)
    }

    private func setState(_ state: State) {
        storage.withLockedValue { $0.state = state }
    }

    /// Calls `handler` with every change set applied from now on, and the results after it, until the
    /// returned subscription is cancelled or released: the replica's observers
    /// (`ResultsReplica.observeChanges(_:)`).
    ///
    /// Handlers run on the task that follows the stream, one at a time and in order.
    ///
    /// - Returns: The results the first change set applies to, and the subscription.
    /// - Complexity: O(1).
    public func observeChanges(
        _ handler: @escaping @Sendable (ChangeSet<Entity>, FetchedResultsSnapshot<Entity>) -> Void
    ) -> (snapshot: FetchedResultsSnapshot<Entity>, subscription: EventSubscription) {
        replica.observeChanges(handler)
    }

    /// The change sets applied from now on, each kept until read (the buffer is not bounded); the
    /// subscription ends when the stream is dropped or its task cancelled.
    ///
    /// - Complexity: O(1).
    public var changes: AsyncStream<ChangeSet<Entity>> {
        let (stream, continuation) = AsyncStream<ChangeSet<Entity>>.makeStream()
        let (_, subscription) = observeChanges { changes, _ in continuation.yield(changes) }
        continuation.onTermination = { _ in subscription.cancel() }
        return stream
    }
}

/// The mutable part of a ``RemoteResults``, behind its lock.
struct _RemoteStorage<Entity: FetchableEntity & Codable> {
    var state = RemoteResults<Entity>.State.idle
    var task: Task<Void, Never>?
}

/// `GET` of an event stream.
struct _EventStreamRequest: APIRequest {
    typealias Response = EmptyResponse
    @RequestPath var path: String
    @RequestHeader(name: "Accept") var accept = "text/event-stream"

    init(path: String) {
        self.path = path
    }
}
