import Foundation
import LiveResults

/// An entity sorted by a first key that ties almost always: ten priorities, then the id.
public struct TiedItem: FetchableEntity {
    public var id: Int64
    public var priority: Int
    public var title: String

    public init(id: Int64, priority: Int, title: String) {
        self.id = id
        self.priority = priority
        self.title = title
    }
}

/// A controller of `TiedItem`s sorted by `[priority, id]` and a stream of updates that each change one
/// item's priority: the shape of a queue of jobs or tickets, where every insert and remove descends
/// through slots whose first sort key ties and only the second one decides.
public final class TiedSortScenario {
    /// The number of distinct priorities.
    public static var priorities: Int { 10 }

    public let controller: FetchedResultsController<TiedItem>
    private var items: [TiedItem]
    private var random = SplitMix64(seed: Dataset.seed &+ 2)

    /// Loads a controller with `count` items of random priorities.
    public init(count: Int) async throws {
        var random = SplitMix64(seed: Dataset.seed)
        let items = (0..<count).map { id in
            TiedItem(id: Int64(id), priority: random.below(Self.priorities), title: "title \(id)")
        }
        self.items = items
        controller = FetchedResultsController(
            definition: FetchDefinition { items },
            sortDescriptors: [SortDescriptor(\TiedItem.priority), SortDescriptor(\TiedItem.id)]
        )
        try await controller.performFetch()
    }

    /// The next `count` updates, each moving a random item to another priority.
    public func nextEvents(_ count: Int) -> [EntityEvent<TiedItem>] {
        (0..<count).map { _ in
            let index = random.below(items.count)
            items[index].priority = (items[index].priority + 1 + random.below(Self.priorities - 1)) % Self.priorities
            return .updated(items[index])
        }
    }

    /// Applies each event as a batch of its own.
    /// - Returns: the number of changes reported.
    @discardableResult
    public func applyEach(_ events: [EntityEvent<TiedItem>]) -> Int {
        events.reduce(0) { $0 &+ controller.apply($1).count }
    }
}
