import Benchmark
import BenchmarkSupport

// The LiveResults suite: every workload of the core targets at n = 1k, 10k, 100k and 1M, with the in-house
// baselines (a) and (b) under the same event stream.
//
// Times are per event where the name says "per event" (`scalingFactor` is the number of events an
// iteration applies), per batch of 100 for "batches of 100", and per operation otherwise.
//
//   swift package --disable-sandbox benchmark
//   swift package --disable-sandbox benchmark --filter ".*single events, per event, n=100k"  (a regex matching whole names)
let benchmarks: @Sendable () -> Void = {
    Benchmark.defaultConfiguration = .init(
        metrics: [.wallClock, .throughput, .mallocCountTotal, .peakMemoryResident],
        warmupIterations: 1,
        maxDuration: .seconds(2),
        maxIterations: 10_000
    )
    for count in Dataset.sizes {
        registerEventBenchmarks(count: count)
        registerBaselineBenchmarks(count: count)
        registerFetchBenchmarks(count: count)
    }
}
