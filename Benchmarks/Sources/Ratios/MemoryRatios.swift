import BenchmarkSupport

/// The memory target: bytes per entity beyond the entities themselves.
@MainActor
struct MemoryRatios {
    let options: RatioOptions

    func rows() async throws -> [RatioRow] {
        let label = Dataset.label(options.large)
        Progress.say("memory of \(label) rows, and of a controller that fetched them")
        let overhead = try await MemoryOverhead.measure(count: options.large)
        return [
            RatioRow(
                name: "Memory overhead per entity at \(label), beyond the entities",
                measured: "heap: rows \(overhead.rows.heapBytes.megabytes), controller "
                    + "\(overhead.controller.heapBytes.megabytes); resident: "
                    + "\(overhead.residentBytesPerEntity.formatted(digits: 3)) B/entity",
                value: overhead.heapBytesPerEntity, unit: " B", target: .atMost(48))
        ]
    }
}

extension Int {
    /// In megabytes, e.g. 45.8 MB.
    var megabytes: String {
        "\((Double(self) / 1e6).formatted(digits: 3)) MB"
    }
}
