import AsyncHTTPClient
import Foundation
import NIOCore
import NIOConcurrencyHelpers

/// Polls `GET /todos` (the versioned whole results) every second, counting the bytes of the bodies.
final class Poller: Sendable {
    private let state = NIOLockedValueBox<(bytes: Int, polls: Int, durations: [Double])>((0, 0, []))

    var counters: (bytes: Int, polls: Int) { state.withLockedValue { ($0.bytes, $0.polls) } }
    var durations: [Double] { state.withLockedValue { $0.durations } }

    func run(_ url: String, http: HTTPClient) async {
        var next = now()
        while !Task.isCancelled {
            let start = now()
            if let response = try? await http.execute(versionedRequest(url), timeout: .seconds(60)),
                let body = try? await response.body.collect(upTo: 1 << 30)
            {
                let duration = seconds(from: start, to: now())
                state.withLockedValue {
                    $0.bytes += body.readableBytes
                    $0.polls += 1
                    $0.durations.append(duration)
                }
            }
            next += 1_000_000_000
            let time = now()
            if next > time { try? await Task.sleep(for: .nanoseconds(Int64(next - time))) }
        }
    }
}
