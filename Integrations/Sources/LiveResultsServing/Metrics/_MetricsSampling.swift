import LiveResults
import Metrics

/// The routes' gauges that are read rather than counted (live queries, held versions): a task reads them every
/// ``LiveResultsOptions/metricsSamplingInterval`` and moves the gauges by what changed since its last reading.
///
/// The task lives as long as the routes' ``LiveResultsEndpoint``, which cancels it when it goes; it then takes back
/// what it reported, so that the process's sums no longer count routes that are gone.
enum _MetricsSampling {
    /// What one reading found.
    struct Sample: Equatable, Sendable {
        var liveQueries = 0
        var held = HeldVersions()
    }

    /// Starts reading `read` every `interval` into `metrics`, until the task is cancelled.
    ///
    /// - Complexity: Each reading costs what `read` does.
    static func start(
        every interval: Duration, into metrics: _ServingMetrics, read: @escaping @Sendable () -> Sample
    ) -> Task<Void, Never> {
        Task {
            var reported = Sample()
            while !Task.isCancelled {
                let sample = read()
                move(metrics, from: reported, to: sample)
                reported = sample
                // Cancelled with the routes: the sleep throws, and the loop ends.
                try? await Task.sleep(for: interval)
            }
            move(metrics, from: reported, to: Sample())
        }
    }

    /// Moves the gauges by the difference between two readings.
    static func move(_ metrics: _ServingMetrics, from old: Sample, to new: Sample) {
        move(metrics.liveQueries, by: new.liveQueries - old.liveQueries)
        move(metrics.heldVersions, by: new.held.count - old.held.count)
        move(metrics.heldVersionBytes, by: new.held.estimatedBytes - old.held.estimatedBytes)
    }

    /// Moves `meter` by `difference`: up or down, as a meter's API says it (no negative increment).
    private static func move(_ meter: Meter, by difference: Int) {
        if difference > 0 {
            meter.increment(by: Double(difference))
        } else if difference < 0 {
            meter.decrement(by: Double(-difference))
        }
    }
}
