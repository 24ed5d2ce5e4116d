import Foundation
import LiveResults

/// LiveResults itself: a controller sorted by one Foundation `SortDescriptor` and sectioned by key path.
public final class LiveResultsDesign: ResultsDesign, Sendable {
    public let controller: FetchedResultsController<Row>

    public init(fetching rows: [Row]) async throws {
        controller = Self.makeController { rows }
        try await controller.performFetch()
    }

    /// A controller with the benchmarks' configuration: `SortDescriptor(\Row.score)`, sectioned by
    /// `\Row.section`.
    public static func makeController(request: @escaping FetchDefinition<Row>.Request) -> FetchedResultsController<Row>
    {
        FetchedResultsController(
            definition: FetchDefinition(request: request),
            sortDescriptors: [SortDescriptor(\Row.score)],
            sectionNameKeyPath: \Row.section
        )
    }

    public func apply(_ events: [EntityEvent<Row>]) -> Int {
        controller.apply(events).count
    }

    public func apply(_ event: EntityEvent<Row>) -> Int {
        controller.apply(event).count
    }

    /// Applies each event as a batch of its own and takes a snapshot after each, keeping the latest
    /// one alive while the next event is applied, as a reader that follows every change would.
    /// - Returns: the number of changes reported, plus the count of the last snapshot.
    public func applyTakingSnapshots(_ events: [EntityEvent<Row>]) -> Int {
        var latest = controller.snapshot
        var changes = 0
        for event in events {
            changes &+= controller.apply(event).count
            latest = controller.snapshot
        }
        return changes &+ latest.count
    }

    public var contents: [SectionContents] {
        controller.sections.map { SectionContents(name: $0.name, ids: $0.objects.map(\.id)) }
    }
}
