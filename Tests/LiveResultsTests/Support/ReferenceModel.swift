import Foundation
import LiveResults
import LiveResultsTesting

/// The ordering rule for ``Item``s sorted by score, as `LiveResultsTesting`'s ``ReferenceResults`` states it, in
/// the configurations the tests use and with the results as a ``SnapshotModel``. The controller must always agree
/// with it.
///
/// Unlike a controller (and `ReferenceResults` itself), it takes events from its creation on: the tests that use
/// it fetch first, or feed it what the controller has shown.
struct ReferenceModel {
    private var results: ReferenceResults<Item>
    /// Whether titles break ties of scores (before insertion order).
    var sortsByTitleToo = false {
        didSet {
            results.resort(
                using: sortsByTitleToo
                    ? [SortDescriptor(\Item.score), SortDescriptor(\.title)] : [SortDescriptor(\.score)])
        }
    }

    init(isIncluded: @escaping (Item) -> Bool = { _ in true }, sectioned: Bool = true, descendingSections: Bool = false)
    {
        results = ReferenceResults(
            sortDescriptors: [SortDescriptor(\Item.score)], sectionNameKeyPath: sectioned ? \Item.section : nil,
            sectionOrder: descendingSections ? .descending : .ascending, isIncluded: isIncluded)
        results.fetch([])
    }

    mutating func fetch(_ items: [Item]) { results.fetch(items) }

    mutating func apply(_ event: EntityEvent<Item>) { results.apply(event) }

    var snapshot: SnapshotModel<Item> { SnapshotModel(sections: results.sections.map { ($0.name, $0.objects) }) }
}
