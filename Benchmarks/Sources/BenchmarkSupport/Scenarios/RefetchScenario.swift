import LiveResults
import Synchronization

/// A loaded controller that refetches, and its reference: building one `[id: position]` dictionary.
///
/// The two results differ by 10% of rows removed, 10% added and 2% reordered (given a new score, so they
/// move). The request alternates between them, so every refetch (first → second, second → first) has the
/// same size of difference and needs no reset between measurements.
public final class RefetchScenario: Sendable {
    /// The result loaded first: the seeded rows.
    public let first: [Row]
    /// The result the first refetch returns.
    public let second: [Row]
    private let controller: FetchedResultsController<Row>

    /// Loads a new controller with `count` seeded rows.
    public init(count: Int) async throws {
        let (first, second) = Self.results(count: count)
        let source = AlternatingSource(results: [first, second])
        self.first = first
        self.second = second
        controller = LiveResultsDesign.makeController { source.next() }
        try await controller.performFetch()
    }

    /// The number of rows the two results share but score differently.
    public var rescoredCount: Int {
        Self.changeCounts(for: first.count).rescored
    }

    /// The measured operation: one refetch, which diffs the new result against the shown one.
    @discardableResult
    public func refetch() async throws -> ChangeSet<Row> {
        try await controller.performFetch()
    }

    /// The reference: one `[id: position]` dictionary of a result.
    public static func positions(of rows: [Row]) -> [Int: Int] {
        var positions = [Int: Int](minimumCapacity: rows.count)
        for (position, row) in rows.enumerated() { positions[row.id] = position }
        return positions
    }

    /// How many rows the second result removes, adds and gives a new score: 10%, 10% and 2%.
    public static func changeCounts(for count: Int) -> (removed: Int, added: Int, rescored: Int) {
        (count / 10, count / 10, count / 50)
    }

    /// The seeded rows, and a second result that removes, adds and rescores rows as `changeCounts`
    /// says; the rows kept stay in the same relative fetch order, and the new ones come last.
    public static func results(count: Int) -> (first: [Row], second: [Row]) {
        let first = Dataset.rows(count: count)
        let changes = changeCounts(for: count)
        var random = SplitMix64(seed: Dataset.seed &+ 2)
        var picked = Array(first.indices)
        picked.shuffle(using: &random)
        let removed = Set(picked.prefix(changes.removed))
        let rescored = Set(picked.dropFirst(changes.removed).prefix(changes.rescored))
        var second = first.indices.filter { !removed.contains($0) }.map { index in
            var row = first[index]
            if rescored.contains(index) { row.score = random.below(Dataset.scoreRange) }
            return row
        }
        second += (count..<count + changes.added).map { Dataset.randomRow(id: $0, using: &random) }
        return (first, second)
    }
}

/// A fetch request that returns its results in turn.
private final class AlternatingSource: Sendable {
    private let results: [[Row]]
    private let turn = Atomic<Int>(0)

    init(results: [[Row]]) {
        self.results = results
    }

    func next() -> [Row] {
        results[turn.wrappingAdd(1, ordering: .relaxed).oldValue % results.count]
    }
}
