import Foundation
import NIOConcurrencyHelpers

/// Samples the server's usage every second.
final class Sampler: Sendable {
    let samples = NIOLockedValueBox<[(time: UInt64, usage: Usage)]>([])

    func run(pid: Int32) async {
        while !Task.isCancelled {
            if let usage = Usage(pid: pid) { samples.withLockedValue { $0.append((now(), usage)) } }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// The last sample at or before `time`.
    func usage(at time: UInt64) -> Usage? {
        samples.withLockedValue { samples in samples.last { $0.time <= time }?.usage }
    }

    func maximumRSS(from start: UInt64, to end: UInt64) -> Int {
        samples.withLockedValue { samples in
            samples.filter { (start...end).contains($0.time) }.map(\.usage.rss).max() ?? 0
        }
    }
}
