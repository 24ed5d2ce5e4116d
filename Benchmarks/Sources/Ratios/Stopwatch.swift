import Foundation

/// Timing with `ContinuousClock`: a warm-up, then the median of several repetitions.
@MainActor
enum Stopwatch {
    /// One timed repetition of something: it returns the duration to count.
    typealias Measurement = () async throws -> Duration

    /// Runs each measurement once untimed, then `repetitions` rounds of all of them in turn, so that a
    /// slow spell of the machine affects the measurements of a pair alike.
    /// - Returns: the median duration of each measurement, in order.
    static func medians(_ repetitions: Int, of measurements: [Measurement]) async throws -> [Duration] {
        for measurement in measurements { _ = try await measurement() }
        var durations = Array(repeating: [Duration](), count: measurements.count)
        for _ in 0..<repetitions {
            for (index, measurement) in measurements.enumerated() { durations[index].append(try await measurement()) }
        }
        return durations.map { $0.sorted()[$0.count / 2] }
    }

    /// How long `body` takes. What it returns is released after the clock stops.
    static func measure<Result>(_ body: () async throws -> Result) async rethrows -> Duration {
        let start = ContinuousClock.now
        let result = try await body()
        let duration = start.duration(to: .now)
        withExtendedLifetime(result) {}
        return duration
    }
}

extension Duration {
    /// In seconds.
    var seconds: Double {
        Double(components.seconds) + Double(components.attoseconds) * 1e-18
    }

    /// Short and readable: 1.23 µs, 45.6 ms.
    var formatted: String {
        let value = seconds
        let (scaled, unit) =
            switch value {
            case ..<1e-6: (value * 1e9, "ns")
            case ..<1e-3: (value * 1e6, "µs")
            case ..<1: (value * 1e3, "ms")
            default: (value, "s")
            }
        return "\(scaled.formatted(digits: 3)) \(unit)"
    }
}

extension Double {
    /// With `digits` significant digits, and no exponent.
    func formatted(digits: Int) -> String {
        guard isFinite, self != 0 else { return "\(self)" }
        let decimals = max(0, digits - 1 - Int(log10(abs(self)).rounded(.down)))
        return String(format: "%.\(decimals)f", self)
    }

    /// As short as it can be: 5000, 1.5.
    var compact: String {
        String(format: "%g", self)
    }
}
