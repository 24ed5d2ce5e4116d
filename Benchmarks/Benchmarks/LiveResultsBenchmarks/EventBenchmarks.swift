import Benchmark
import BenchmarkSupport
import LiveResults

/// LiveResults under the mixed event stream: single events, with and without a snapshot after each,
/// and batches of 100.
func registerEventBenchmarks(count: Int) {
    let size = Dataset.label(count)
    eventBenchmark(
        "LiveResults: single events, per event, n=\(size)", LiveResultsDesign.self, count: count,
        configuration: .thousandEventsPerIteration
    ) {
        $0.applyEach($1)
    }
    eventBenchmark(
        "LiveResults: single events + snapshot after each, per event, n=\(size)", LiveResultsDesign.self,
        count: count, configuration: .thousandEventsPerIteration
    ) {
        $0.applyEachTakingSnapshots($1)
    }
    batchBenchmark(
        "LiveResults: batches of 100, n=\(size)", LiveResultsDesign.self, count: count, configuration: .init())
}

/// The baselines under the same stream. Each of their runs stays within about 10 seconds, 1M included.
func registerBaselineBenchmarks(count: Int) {
    registerBaseline("Baseline (a) re-sort+diff", ResortDiffBaseline.self, count: count)
    registerBaseline("Baseline (b) sorted arrays+table", SortedArraysBaseline.self, count: count)
}

private func registerBaseline<Design: ResultsDesign>(_ name: String, _ design: Design.Type, count: Int) {
    let size = Dataset.label(count)
    eventBenchmark("\(name): single events, per event, n=\(size)", design, count: count, configuration: .baseline) {
        $0.applyEach($1)
    }
    batchBenchmark("\(name): batches of 100, n=\(size)", design, count: count, configuration: .baseline)
}

/// A benchmark whose iteration applies `scalingFactor` events, made before the measurement starts, so
/// that its times read per event.
private func eventBenchmark<Design: ResultsDesign>(
    _ name: String,
    _ design: Design.Type,
    count: Int,
    configuration: Benchmark.Configuration,
    run: @escaping (EventScenario<Design>, [EntityEvent<Row>]) -> Int
) {
    Benchmark(name, configuration: configuration) { benchmark, scenario in
        let events = scenario.nextEvents(benchmark.scaledIterations.count)
        benchmark.startMeasurement()
        blackHole(run(scenario, events))
        benchmark.stopMeasurement()
    } setup: {
        try await EventScenario<Design>(count: count)
    }
}

/// A benchmark whose iteration applies one batch of 100 events, so that its times read per batch.
private func batchBenchmark<Design: ResultsDesign>(
    _ name: String,
    _ design: Design.Type,
    count: Int,
    configuration: Benchmark.Configuration
) {
    Benchmark(name, configuration: configuration) { benchmark, scenario in
        let batches = scenario.nextBatches(1)
        benchmark.startMeasurement()
        blackHole(scenario.applyBatches(batches))
        benchmark.stopMeasurement()
    } setup: {
        try await EventScenario<Design>(count: count)
    }
}

extension Benchmark.Configuration {
    /// LiveResults applies a thousand events per iteration (a few milliseconds), reported per event.
    fileprivate static var thousandEventsPerIteration: Self {
        .init(scalingFactor: .kilo)
    }

    /// A baseline takes milliseconds to a second per event: a few iterations measure it well enough.
    fileprivate static var baseline: Self {
        .init(maxIterations: 20)
    }
}
