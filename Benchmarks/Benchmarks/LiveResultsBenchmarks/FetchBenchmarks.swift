import Benchmark
import BenchmarkSupport

/// The initial fetch against `Array.sort(by:)`, and the refetch against one dictionary build.
func registerFetchBenchmarks(count: Int) {
    let configuration = Benchmark.Configuration(
        warmupIterations: count >= 1_000_000 ? 0 : 1,
        maxDuration: .seconds(3),
        maxIterations: count >= 1_000_000 ? 5 : 100
    )
    registerInitialFetch(count: count, configuration: configuration)
    registerRefetch(count: count, configuration: configuration)
}

private func registerInitialFetch(count: Int, configuration: Benchmark.Configuration) {
    let size = Dataset.label(count)
    Benchmark("LiveResults: initial fetch, n=\(size)", configuration: configuration) { benchmark, scenario in
        let design = try await scenario.fetch()
        benchmark.stopMeasurement()
        blackHole(design)
    } setup: {
        FetchScenario(count: count)
    }
    Benchmark("Reference: Array.sort(by:) closure, n=\(size)", configuration: configuration) { benchmark, scenario in
        var rows = scenario.unsortedCopy()
        benchmark.startMeasurement()
        FetchScenario.sortByHand(&rows)
        benchmark.stopMeasurement()
        blackHole(rows)
    } setup: {
        FetchScenario(count: count)
    }
}

private func registerRefetch(count: Int, configuration: Benchmark.Configuration) {
    let size = Dataset.label(count)
    Benchmark(
        "LiveResults: refetch, 10% removed, 10% added, 2% reordered, n=\(size)", configuration: configuration
    ) { benchmark, scenario in
        let changes = try await scenario.refetch()
        benchmark.stopMeasurement()
        blackHole(changes)
    } setup: {
        try await RefetchScenario(count: count)
    }
    Benchmark("Reference: [id: position] dictionary of the refetch result, n=\(size)", configuration: configuration) {
        benchmark, rows in
        let positions = RefetchScenario.positions(of: rows)
        benchmark.stopMeasurement()
        blackHole(positions)
    } setup: {
        RefetchScenario.results(count: count).second
    }
}
