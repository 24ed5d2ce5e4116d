import LiveResultsLockSupport

/// The routes that `addLiveResults(_:at:options:)` added: counts of their
/// streams, for metrics and tests.
///
/// ```swift
/// let endpoint = router.addLiveResults(controller, at: "todos")
/// print(endpoint.openStreams)   // streams open now
/// ```
public final class LiveResultsEndpoint: Sendable {
    /// What the counters hold.
    struct Counts {
        var open = 0
        var served = 0
        var refused = 0
    }

    /// The most streams open at once.
    public let maximumStreams: Int
    private let counts = PthreadLock(Counts())

    init(maximumStreams: Int) {
        self.maximumStreams = max(0, maximumStreams)
    }

    /// The streams open now (Server-Sent Events and WebSocket).
    public var openStreams: Int { counts.withLock { $0.open } }

    /// The streams opened since the routes were added.
    public var servedStreams: Int { counts.withLock { $0.served } }

    /// The streams refused because ``maximumStreams`` were open.
    public var refusedStreams: Int { counts.withLock { $0.refused } }

    /// Whether a stream could open now (a hint: ``openStream()`` decides).
    var hasRoom: Bool { counts.withLock { $0.open < maximumStreams } }

    /// A slot for one stream, released when the slot is; `nil` (counted as refused) when none is free.
    func openStream() -> _StreamSlot? {
        let opened = counts.withLock { counts in
            guard counts.open < maximumStreams else {
                counts.refused += 1
                return false
            }
            counts.open += 1
            counts.served += 1
            return true
        }
        return opened ? _StreamSlot(self) : nil
    }

    /// Counts a refusal made before a slot was asked for (a WebSocket upgrade refused up front).
    func countRefusal() {
        counts.withLock { $0.refused += 1 }
    }

    fileprivate func close() {
        counts.withLock { $0.open -= 1 }
    }
}

/// One open stream of an endpoint. Released when the last reference goes: a response body that is never
/// written (the client left first) releases its slot too.
final class _StreamSlot: Sendable {
    private let endpoint: LiveResultsEndpoint

    fileprivate init(_ endpoint: LiveResultsEndpoint) {
        self.endpoint = endpoint
    }

    deinit {
        endpoint.close()
    }
}
