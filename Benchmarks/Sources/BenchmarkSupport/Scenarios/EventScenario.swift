import LiveResults

/// A design loaded with the seeded rows, and the mixed event stream that drives it.
///
/// Make the events with `nextEvents(_:)` or `nextBatches(_:)` outside the measurement, then apply them
/// inside it. Two scenarios of the same size see the same rows and the same events.
public final class EventScenario<Design: ResultsDesign> {
    /// The number of events in a batch of the batch workloads.
    public static var batchSize: Int { 100 }

    public let design: Design
    private var workload: MixedWorkload

    /// Loads a new design with `count` seeded rows.
    public init(count: Int) async throws {
        let rows = Dataset.rows(count: count)
        design = try await Design(fetching: rows)
        workload = MixedWorkload(rows: rows, seed: Dataset.seed &+ 1)
    }

    /// The next `count` events of the stream, each to be applied as a batch of its own.
    public func nextEvents(_ count: Int) -> [EntityEvent<Row>] {
        workload.events(count: count)
    }

    /// The next `count` batches of `batchSize` events.
    public func nextBatches(_ count: Int) -> [[EntityEvent<Row>]] {
        workload.batches(count: count, size: Self.batchSize)
    }

    /// Applies each event as a batch of its own.
    /// - Returns: the number of changes reported.
    @discardableResult
    public func applyEach(_ events: [EntityEvent<Row>]) -> Int {
        events.reduce(0) { $0 &+ design.apply($1) }
    }

    /// Applies each batch.
    /// - Returns: the number of changes reported.
    @discardableResult
    public func applyBatches(_ batches: [[EntityEvent<Row>]]) -> Int {
        batches.reduce(0) { $0 &+ design.apply($1) }
    }
}

extension EventScenario where Design == LiveResultsDesign {
    /// Applies each event as a batch of its own and takes a snapshot after each one.
    /// - Returns: the number of changes reported, plus the count of the last snapshot.
    @discardableResult
    public func applyEachTakingSnapshots(_ events: [EntityEvent<Row>]) -> Int {
        design.applyTakingSnapshots(events)
    }
}
