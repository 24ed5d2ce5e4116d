import Foundation
import LiveResults
import Synchronization
import Testing

/// The index path of an item in a section.
func ip(_ section: Int, _ item: Int) -> IndexPath {
    IndexPath(item: item, section: section)
}

/// A controller over a `FakeStore` and the snapshot it showed last. Every change made through the
/// fixture is checked against the change-set contract from that snapshot to the new one.
struct ScenarioFixture {
    /// a: 1, 2, 3 | b: 4 | c: 5, 6 when sectioned and sorted by score.
    static let sample = [
        Item(1, section: "a", score: 10), Item(2, section: "a", score: 20), Item(3, section: "a", score: 30),
        Item(4, section: "b", score: 10),
        Item(5, section: "c", score: 10), Item(6, section: "c", score: 20),
    ]

    let store: FakeStore
    let controller: FetchedResultsController<Item>
    /// The delegate; it records from the end of `loaded()` on.
    private(set) var recorder = ChangeRecorder<Item>()
    /// The snapshot after the last change the fixture checked.
    private(set) var model: SnapshotModel<Item>

    /// A controller made by `FetchedResultsController.make`, not fetched yet.
    init(
        _ items: [Item],
        sectioned: Bool = true,
        sortDescriptors: [SortDescriptor<Item>] = [SortDescriptor(\Item.score)],
        sectionOrder: SectionOrder = .ascending,
        isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true },
        diagnostics: EventHarness.DiagnosticLog? = nil
    ) {
        let store = FakeStore(items)
        let controller = FetchedResultsController.make(
            store,
            sectioned: sectioned,
            sortDescriptors: sortDescriptors,
            sectionOrder: sectionOrder,
            isIncluded: isIncluded,
            diagnostics: diagnostics?.handler
        )
        self.init(store: store, controller: controller)
    }

    /// Any controller over `store`, not fetched yet.
    init(store: FakeStore, controller: FetchedResultsController<Item>) {
        self.store = store
        self.controller = controller
        self.model = SnapshotModel(controller.snapshot)
        controller.delegate = recorder
    }

    /// This fixture after a first fetch, recording deliveries from then on.
    func loaded(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ScenarioFixture {
        var fixture = self
        try await fixture.fetch(sourceLocation: sourceLocation)
        fixture.recorder = ChangeRecorder()
        fixture.controller.delegate = fixture.recorder
        return fixture
    }

    var ids: [[Int]] { model.ids }
    var names: [String] { model.names }
    /// The change sets the delegate received since `loaded()`.
    var deliveries: [ChangeSet<Item>] { recorder.changeSets }

    @discardableResult
    mutating func fetch(sourceLocation: SourceLocation = #_sourceLocation) async throws -> ChangeSet<Item> {
        let changes = try await controller.performFetch()
        check(changes, sourceLocation: sourceLocation)
        return changes
    }

    @discardableResult
    mutating func apply(_ events: [EntityEvent<Item>], sourceLocation: SourceLocation = #_sourceLocation) -> ChangeSet<
        Item
    > {
        let changes = controller.apply(events)
        check(changes, sourceLocation: sourceLocation)
        return changes
    }

    @discardableResult
    mutating func resort(using descriptors: [SortDescriptor<Item>], sourceLocation: SourceLocation = #_sourceLocation)
        -> ChangeSet<Item>
    {
        let changes = controller.resort(using: descriptors)
        check(changes, sourceLocation: sourceLocation)
        return changes
    }

    @discardableResult
    mutating func resort(
        using comparator: some SortComparator<Item> & Sendable,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> ChangeSet<Item> {
        let changes = controller.resort(using: comparator)
        check(changes, sourceLocation: sourceLocation)
        return changes
    }

    @discardableResult
    mutating func reset(sourceLocation: SourceLocation = #_sourceLocation) -> ChangeSet<Item> {
        let changes = controller.reset()
        check(changes, sourceLocation: sourceLocation)
        return changes
    }

    /// Checks `changes` against the contract from the last snapshot to the controller's current one,
    /// which becomes the last snapshot.
    mutating func check(_ changes: ChangeSet<Item>, sourceLocation: SourceLocation = #_sourceLocation) {
        let new = SnapshotModel(controller.snapshot)
        expectContract(changes, from: model, to: new, sourceLocation: sourceLocation)
        model = new
    }
}
