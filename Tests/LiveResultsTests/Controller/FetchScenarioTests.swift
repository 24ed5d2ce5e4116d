import Foundation
import LiveResults
import Synchronization
import Testing

/// Fetching, refetching, resorting and resetting (the *FetchedResultsController*, *ReadingAndOrdering* and
/// *ChangeSetContract* articles). Every change set is checked against the contract between the snapshots before and
/// after it.
@Suite("Fetch scenarios", .timeLimit(.minutes(5)))
struct FetchScenarioTests {
    typealias Fixture = ScenarioFixture

    // MARK: First fetch

    @Test func fetchShowsEveryEntitySortedAndReportsThemInserted() async throws {
        var fixture = Fixture([Item(2, score: 20), Item(1, score: 10), Item(3, score: 30)], sectioned: false)
        let changes = try await fixture.fetch()
        #expect(changes.insertedSections == [0])
        #expect(changes.insertedSectionNames == [""])
        #expect(changes.insertedItems == [ip(0, 0), ip(0, 1), ip(0, 2)])
        #expect(changes.insertedItemIDs == [1, 2, 3])
        #expect(changes.deletedSections.isEmpty && changes.deletedItems.isEmpty)
        #expect(changes.movedItems.isEmpty && changes.updatedItems.isEmpty)
        #expect(fixture.controller.fetchedObjects.map(\.id) == [1, 2, 3])
        #expect(fixture.controller.snapshot.count == 3)
    }

    @Test func sortDescriptorsWinOverFetchOrder() async throws {
        let fixture = try await Fixture(
            [Item(1, score: 10), Item(2, score: 30), Item(3, score: 20)],
            sectioned: false,
            sortDescriptors: [SortDescriptor(\Item.score, order: .reverse)]
        ).loaded()
        #expect(fixture.ids == [[2, 3, 1]])
    }

    static let unsortedSections = [
        Item(1, section: "b", score: 10), Item(2, section: "c", score: 10), Item(3, section: "a", score: 10),
        Item(4, section: "c", score: 5), Item(5, section: "b", score: 20), Item(6, section: "c", score: 1),
    ]

    @Test func sectionsHaveTheirNamesInOrderAndTheirCounts() async throws {
        let fixture = try await Fixture(Self.unsortedSections).loaded()
        let sections = fixture.controller.sections
        #expect(sections.map(\.name) == ["a", "b", "c"])
        #expect(sections.map(\.numberOfObjects) == [1, 2, 3])
        for section in sections {
            #expect(section.objects.allSatisfy { $0.section == section.name }, "section \(section.name)")
            #expect(section.objects.count == section.numberOfObjects)
        }
    }

    @Test func sectionsAreSortedInsideByTheDescriptors() async throws {
        let fixture = try await Fixture(
            Self.unsortedSections,
            sortDescriptors: [SortDescriptor(\Item.score, order: .reverse)]
        ).loaded()
        #expect(fixture.ids == [[3], [5, 1], [2, 4, 6]])
    }

    @Test func tiesKeepFetchOrder() async throws {
        let fixture = try await Fixture(
            [Item(4, score: 20), Item(2, score: 10), Item(3, score: 20), Item(1, score: 10)],
            sectioned: false
        ).loaded()
        #expect(fixture.ids == [[2, 1, 4, 3]])
    }

    // MARK: Reading

    @Test func indexPathsRoundTripOnControllerAndSnapshot() async throws {
        let controller = try await Fixture(Fixture.sample).loaded().controller
        let snapshot = controller.snapshot
        var visited: [Int] = []
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            for (itemIndex, entity) in section.objects.enumerated() {
                let path = ip(sectionIndex, itemIndex)
                #expect(controller.object(at: path) == entity)
                #expect(snapshot.object(at: path) == entity)
                #expect(controller.indexPath(for: entity) == path)
                #expect(snapshot.indexPath(for: entity) == path)
                visited.append(entity.id)
            }
        }
        #expect(visited == [1, 2, 3, 4, 5, 6])
        #expect(controller.fetchedObjects.map(\.id) == visited)
        #expect(snapshot.fetchedObjects.map(\.id) == visited)
        #expect(controller.fetchedObjects[3].id == 4)
    }

    @Test func indexPathIsLookedUpByID() async throws {
        let controller = try await Fixture(Fixture.sample).loaded().controller
        #expect(controller.indexPath(for: Item(6, section: "zzz", score: -1, title: "other")) == ip(2, 1))
        #expect(controller.indexPath(for: Item(99, section: "a", score: 10)) == nil)
    }

    @Test func withoutSectionKeyPathThereIsOneSectionNamedEmpty() async throws {
        let fixture = try await Fixture(
            [Item(1, section: "x", score: 2), Item(2, section: "y", score: 1), Item(3, section: "x", score: 3)],
            sectioned: false
        ).loaded()
        #expect(fixture.controller.sections.map(\.name) == [""])
        #expect(fixture.controller.sections.first?.numberOfObjects == 3)
        #expect(fixture.ids == [[2, 1, 3]])
    }

    @Test func withoutSectionKeyPathAnEmptyFetchHasNoSection() async throws {
        var fixture = Fixture([], sectioned: false)
        #expect(fixture.controller.sections.isEmpty)
        let changes = try await fixture.fetch()
        #expect(changes.isEmpty)
        #expect(fixture.controller.sections.isEmpty)
        #expect(fixture.controller.fetchedObjects.isEmpty)
        #expect(fixture.controller.state.description == "loaded")
    }

    // MARK: Refetch

    /// 2 is gone, 7 is new, 3 changed its title only, 5 was raised past 6; 1, 4 and 6 are equal.
    @Test func refetchReportsTheDifferenceAsOneChangeSet() async throws {
        var fixture = try await Fixture(Fixture.sample).loaded()
        fixture.store.items = [
            Item(1, section: "a", score: 10), Item(3, section: "a", score: 30, title: "new"),
            Item(4, section: "b", score: 10),
            Item(5, section: "c", score: 30), Item(6, section: "c", score: 20), Item(7, section: "a", score: 5),
        ]
        let changes = try await fixture.fetch()
        #expect(fixture.ids == [[7, 1, 3], [4], [6, 5]])
        #expect(changes.deletedItems == [ip(0, 1)] && changes.deletedItemIDs == [2])
        #expect(changes.insertedItems == [ip(0, 0)] && changes.insertedItemIDs == [7])
        #expect(changes.movedItems == [ItemMove(from: ip(2, 0), to: ip(2, 1))] && changes.movedItemIDs == [5])
        #expect(changes.updatedItems == [ip(0, 2), ip(2, 1)] && changes.updatedItemIDs == [3, 5])
        #expect(changes.insertedSections.isEmpty && changes.deletedSections.isEmpty)
        #expect(fixture.deliveries == [changes])
    }

    @Test func refetchOfEqualContentChangesNothing() async throws {
        var fixture = try await Fixture(Fixture.sample).loaded()
        fixture.store.items = Fixture.sample.reversed()
        let changes = try await fixture.fetch()
        #expect(changes.isEmpty)
        #expect(fixture.deliveries.isEmpty)
    }

    @Test func failedRefetchKeepsTheObjectsSetsFailedAndRethrows() async throws {
        let fixture = try await Fixture(Fixture.sample).loaded()
        let controller = fixture.controller
        fixture.store.fails = true
        await #expect(throws: FakeStore.Failure.self) { try await controller.performFetch() }
        #expect(SnapshotModel(controller.snapshot) == fixture.model)
        #expect(controller.state.error is FakeStore.Failure)
        #expect(controller.statistics.failedFetches == 1)
        #expect(fixture.deliveries.isEmpty)
    }

    @Test func refetchAfterAFailureWorks() async throws {
        var fixture = try await Fixture(Fixture.sample).loaded()
        fixture.store.fails = true
        _ = try? await fixture.controller.performFetch()
        fixture.store.fails = false
        fixture.store.items = Array(Fixture.sample.dropFirst())
        let changes = try await fixture.fetch()
        #expect(changes.deletedItemIDs == [1])
        #expect(fixture.ids == [[2, 3], [4], [5, 6]])
        #expect(fixture.controller.state.description == "loaded")
    }

    @Test(.tags(.concurrent)) func stateGoesFromIdleThroughLoadingToLoaded() async throws {
        let gate = EventHarness.Gate()
        let store = FakeStore(Fixture.sample)
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: {
                await gate.wait()
                return try store.fetch()
            }),
            sortDescriptors: [SortDescriptor(\Item.score)],
            sectionNameKeyPath: \Item.section
        )
        #expect(controller.state.description == "idle")
        let fetch = Task { try await controller.performFetch() }
        #expect(await EventHarness.eventually { gate.waiters == 1 })
        #expect(controller.state.description == "loading")
        #expect(controller.sections.isEmpty)
        gate.open()
        let changes = try await fetch.value
        #expect(controller.state.description == "loaded")
        #expect(changes.insertedItemIDs == [1, 2, 3, 4, 5, 6])
        expectContract(changes, from: SnapshotModel(sections: []), to: SnapshotModel(controller.snapshot))
    }

    @Test func repeatedIDInAFetchKeepsTheFirstOccurrenceAndIsReported() async throws {
        let diagnostics = EventHarness.DiagnosticLog()
        let fixture = try await Fixture(
            [
                Item(1, score: 5, title: "first"), Item(2, score: 1), Item(1, score: 0, title: "second"),
                Item(2, score: 9), Item(3),
            ],
            sectioned: false,
            diagnostics: diagnostics
        ).loaded()
        #expect(fixture.ids == [[3, 2, 1]])
        #expect(fixture.controller.object(at: ip(0, 2)).title == "first")
        #expect(fixture.controller.object(at: ip(0, 1)).score == 1)
        #expect(diagnostics.duplicateIDs == [[1, 2]])
        #expect(fixture.controller.statistics.duplicateFetchedIDs == 2)
    }

    // MARK: Resort

    /// By score: 4, 2, 1, 3. By title, ties keep fetch order (1 before 4), not the previous display order.
    static let resortable = [
        Item(1, score: 20, title: "b"), Item(2, score: 10, title: "a"), Item(3, score: 30, title: "a"),
        Item(4, score: 5, title: "b"),
    ]

    @Test func resortReportsMovesAndKeepsInsertionOrderForTies() async throws {
        var fixture = try await Fixture(Self.resortable, sectioned: false).loaded()
        #expect(fixture.ids == [[4, 2, 1, 3]])
        let changes = fixture.resort(using: [SortDescriptor(\Item.title)])
        #expect(fixture.ids == [[2, 3, 1, 4]])
        #expect(changes.movedItems.count == 2)
        #expect(changes.movedItemIDs.contains(4))
        #expect(changes.insertedItems.isEmpty && changes.deletedItems.isEmpty && changes.updatedItems.isEmpty)
        #expect(fixture.deliveries == [changes])
    }

    @Test func resortedControllerPlacesLiveInsertsByTheNewOrder() async throws {
        var fixture = try await Fixture(Self.resortable, sectioned: false).loaded()
        fixture.resort(using: [SortDescriptor(\Item.title)])
        let changes = fixture.apply([.inserted(Item(5, score: 0, title: "a"))])
        #expect(changes.insertedItems == [ip(0, 2)])
        #expect(fixture.ids == [[2, 3, 5, 1, 4]])
    }

    @Test func resortBySortComparator() async throws {
        var fixture = try await Fixture(Self.resortable, sectioned: false).loaded()
        let changes = fixture.resort(using: TitleLengthOrder(order: .forward))
        #expect(fixture.ids == [[1, 2, 3, 4]], "all titles tie: fetch order")
        #expect(changes.movedItems.count == 2)
    }

    // MARK: Reset

    @Test func resetReportsEveryItemAndSectionDeleted() async throws {
        var fixture = try await Fixture(Fixture.sample).loaded()
        let changes = fixture.reset()
        #expect(changes.deletedSections == [0, 1, 2])
        #expect(changes.deletedSectionNames == ["a", "b", "c"])
        #expect(changes.deletedItems == [ip(0, 0), ip(0, 1), ip(0, 2), ip(1, 0), ip(2, 0), ip(2, 1)])
        #expect(changes.deletedItemIDs == [1, 2, 3, 4, 5, 6])
        #expect(changes.insertedItems.isEmpty && changes.insertedSections.isEmpty && changes.movedItems.isEmpty)
        #expect(fixture.controller.snapshot.isEmpty && fixture.controller.sections.isEmpty)
        #expect(fixture.controller.state.description == "idle")
        #expect(fixture.deliveries == [changes])
    }

    @Test func resetIgnoresEventsUntilTheNextFetch() async throws {
        let diagnostics = EventHarness.DiagnosticLog()
        var fixture = try await Fixture(Fixture.sample, diagnostics: diagnostics).loaded()
        fixture.reset()
        let ignored = fixture.apply([.inserted(Item(9, section: "a")), .deleted(1)])
        #expect(ignored.isEmpty)
        #expect(fixture.controller.snapshot.isEmpty)
        #expect(fixture.controller.statistics.ignoredEvents == 2)
        #expect(diagnostics.ignoredCounts == [2])
        let refetched = try await fixture.fetch()
        #expect(refetched.insertedItemIDs == [1, 2, 3, 4, 5, 6])
        #expect(fixture.apply([.deleted(1)]).deletedItemIDs == [1])
    }

    // MARK: Other ways to define the results

    @Test func predicateInclusionAppliesToFetchAndLiveEvents() async throws {
        let store = FakeStore([Item(1, score: 5), Item(2, score: 0), Item(3, score: -2), Item(4, score: 7)])
        let controller = FetchedResultsController(
            definition: FetchDefinition(request: { try store.fetch() }, isIncluded: #Predicate<Item> { $0.score > 0 }),
            sortDescriptors: [SortDescriptor(\Item.score)]
        )
        var fixture = try await Fixture(store: store, controller: controller).loaded()
        #expect(fixture.ids == [[1, 4]])
        let changes = fixture.apply([
            .inserted(Item(5, score: -1)), .updated(Item(2, score: 6)), .updated(Item(4, score: 0)),
        ])
        #expect(fixture.ids == [[1, 2]])
        #expect(changes.insertedItemIDs == [2] && changes.insertedItems == [ip(0, 1)])
        #expect(changes.deletedItemIDs == [4] && changes.deletedItems == [ip(0, 1)])
    }

    @Test(arguments: [(SortOrder.forward, [2, 5, 3, 4, 1]), (.reverse, [1, 3, 4, 2, 5])])
    func customSortComparatorOrdersTheResults(order: SortOrder, expected: [Int]) async throws {
        let titles = ["ccc", "a", "bb", "dd", "e"]
        let store = FakeStore(titles.enumerated().map { Item($0.offset + 1, title: $0.element) })
        let controller = FetchedResultsController(
            definition: store.definition(),
            sortComparator: TitleLengthOrder(order: order)
        )
        let fixture = try await Fixture(store: store, controller: controller).loaded()
        #expect(fixture.ids == [expected])
    }
}

/// Orders items by the length of their title.
private struct TitleLengthOrder: SortComparator, Sendable {
    var order: SortOrder

    func compare(_ lhs: Item, _ rhs: Item) -> ComparisonResult {
        let (left, right) = order == .forward ? (lhs, rhs) : (rhs, lhs)
        if left.title.count == right.title.count { return .orderedSame }
        return left.title.count < right.title.count ? .orderedAscending : .orderedDescending
    }
}
