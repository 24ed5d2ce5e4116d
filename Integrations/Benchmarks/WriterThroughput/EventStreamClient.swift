import AsyncHTTPClient
import Foundation
import LiveResultsTestSupport
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1

/// One client of the server's Server-Sent Events: reads a stream to its end, counting its bytes and its events
/// without decoding them.
///
/// It stands for a browser on another machine: what is measured is the server's CPU, and a client that decoded
/// every update here would take its share of the two cores from the writers and the server. Whether the server
/// followed the table is checked at the end by a `GET` of its rows (``ServerRun``).
final class EventStreamClient: Sendable {
    struct Counts {
        var bytes = 0
        /// The events read: the lines that start with `id:` (every update has one, its version).
        var events = 0
        var failure: String?
    }

    private let counts: NIOLockedValueBox<Counts>
    private let task: Task<Void, Never>

    /// Starts reading `url` with `http`.
    init(url: String, http: HTTPClient) {
        let counts = NIOLockedValueBox(Counts())
        self.counts = counts
        task = Task {
            do {
                let response = try await http.execute(HTTPClientRequest(url: url), timeout: .hours(1))
                guard response.status == .ok else {
                    counts.withLockedValue { $0.failure = "GET \(url): \(response.status)" }
                    return
                }
                var scanner = LineScanner()
                for try await buffer in response.body {
                    let events = buffer.readableBytesView.reduce(0) { $0 + (scanner.next($1) ? 1 : 0) }
                    counts.withLockedValue {
                        $0.bytes += buffer.readableBytes
                        $0.events += events
                    }
                }
                counts.withLockedValue { $0.failure = $0.failure ?? "the stream ended" }
            } catch {
                if !Task.isCancelled { counts.withLockedValue { $0.failure = "\(error)" } }
            }
        }
    }

    var snapshot: Counts { counts.withLockedValue { $0 } }

    /// Waits until the first event (the whole results) has arrived, for at most `timeout`.
    func waitForFirstEvent(within timeout: Duration) async throws {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            let counts = snapshot
            if let failure = counts.failure { throw TemporaryPostgres.Failure(description: failure) }
            if counts.events > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        throw TemporaryPostgres.Failure(description: "no event within \(timeout)")
    }

    /// Stops reading, and waits for the reading task to end.
    func stop() async {
        task.cancel()
        await task.value
    }
}

/// Finds the lines that start with `id:` in a stream of bytes, however it is cut into buffers.
struct LineScanner {
    /// How many bytes of `id:` the current line has matched from its start; -1 once it cannot match.
    private var matched = 0

    /// Takes the next byte; returns whether it completes an `id:` at the start of a line.
    mutating func next(_ byte: UInt8) -> Bool {
        if byte == UInt8(ascii: "\n") {
            matched = 0
            return false
        }
        guard matched >= 0 else { return false }
        let expected: [UInt8] = [UInt8(ascii: "i"), UInt8(ascii: "d"), UInt8(ascii: ":")]
        guard byte == expected[matched] else {
            matched = -1
            return false
        }
        matched += 1
        if matched == expected.count {
            matched = -1
            return true
        }
        return false
    }
}
