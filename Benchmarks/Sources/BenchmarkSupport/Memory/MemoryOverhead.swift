import LiveResults
import Synchronization

/// How much memory a controller needs per entity beyond the entities themselves.
///
/// It measures the growth of the process's memory for the rows alone (an array of `count` rows), then for
/// a controller that fetched those rows once the array is gone. The overhead is the difference, per entity.
public struct MemoryOverhead: Sendable {
    public var count: Int
    /// Memory for the `[Row]` array alone.
    public var rows: MemoryUsage
    /// Memory for the loaded controller alone.
    public var controller: MemoryUsage

    /// Heap bytes per entity beyond the entities: the measure the target applies to.
    public var heapBytesPerEntity: Double {
        Double(controller.heapBytes - rows.heapBytes) / Double(count)
    }

    /// Resident bytes per entity beyond the entities: noisier, a cross-check.
    public var residentBytesPerEntity: Double {
        Double(controller.residentBytes - rows.residentBytes) / Double(count)
    }

    /// Measures a controller loaded with `count` seeded rows.
    public static func measure(count: Int) async throws -> MemoryOverhead {
        let empty = MemoryUsage.current()
        let handOff = RowsHandOff(Dataset.rows(count: count))
        let rows = MemoryUsage.current().growth(since: empty)
        let controller = LiveResultsDesign.makeController { handOff.take() }
        try await controller.performFetch()
        let loaded = MemoryUsage.current().growth(since: empty)
        return withExtendedLifetime(controller) {
            MemoryOverhead(count: count, rows: rows, controller: loaded)
        }
    }
}

/// Rows that a fetch request takes once, so the controller is left as their only owner.
private final class RowsHandOff: Sendable {
    private let rows: Mutex<[Row]>

    init(_ rows: [Row]) {
        self.rows = Mutex(rows)
    }

    func take() -> [Row] {
        rows.withLock { rows in
            defer { rows = [] }
            return rows
        }
    }
}
