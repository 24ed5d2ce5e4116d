import Foundation
import LiveResults
import NIOConcurrencyHelpers
import TodoServer

/// Decodes each distinct event once for all the stream clients of this process.
///
/// Every client receives the same bytes for an update; decoding them with `JSONDecoder` once per client
/// took about a core at 100 clients and 130 writes per second, on the two cores the server also runs on, so
/// the load client, not the server, set the latency. A client still reads, splits and applies every event
/// itself; only the decoding of data already decoded for another client is shared, keyed by the data.
final class SharedDecoder: Sendable {
    private struct Cache {
        var updates: [String: ResultsUpdate<Todo>] = [:]
        var order: [String] = []
        var next = 0
    }

    /// How many distinct events are kept: far more than the clients can be apart.
    private static let capacity = 4096
    private let cache = NIOLockedValueBox(Cache())

    func decode(_ data: String) throws -> ResultsUpdate<Todo> {
        if let update = cache.withLockedValue({ $0.updates[data] }) { return update }
        let update = try JSONDecoder().decode(ResultsUpdate<Todo>.self, from: Data(data.utf8))
        cache.withLockedValue { cache in
            guard cache.updates.updateValue(update, forKey: data) == nil else { return }
            if cache.order.count < Self.capacity {
                cache.order.append(data)
            } else {
                cache.updates[cache.order[cache.next]] = nil
                cache.order[cache.next] = data
                cache.next = (cache.next + 1) % Self.capacity
            }
        }
        return update
    }
}
