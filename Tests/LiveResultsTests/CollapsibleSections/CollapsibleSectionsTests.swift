import Foundation
@_spi(Testing) import LiveResults
import Testing

/// Collapsible sections (the *CollapsibleSectionsArticle* article), with FetchRequests' collapsible-controller
/// scenarios restated: every change set of the view is checked against the contract over the displayed items.
@Suite("Collapsible sections", .timeLimit(.minutes(5)), .tags(.concurrent))
struct CollapsibleSectionsTests {
    /// Records the view's change sets with the display after each.
    final class Recorder: CollapsibleSectionsDelegate, Sendable {
        private let recorded = Locked<[(changes: ChangeSet<Item>, after: SnapshotModel<Item>)]>([])
        var deliveries: [(changes: ChangeSet<Item>, after: SnapshotModel<Item>)] { recorded.withLock { $0 } }
        var changeSets: [ChangeSet<Item>] { deliveries.map(\.changes) }

        func collapsibleSections(_ view: CollapsibleSections<Item>, didChangeContentWith changes: ChangeSet<Item>) {
            let after = CollapsibleSectionsTests.display(view)
            recorded.withLock { $0.append((changes, after)) }
        }
    }

    /// What the view displays, as the contract sees it.
    static func display(_ view: CollapsibleSections<Item>) -> SnapshotModel<Item> {
        SnapshotModel(sections: view.sections.map { ($0.name, Array($0.objects)) })
    }

    /// A view over a loaded controller, with a recorder, and the display it last checked.
    struct Fixture {
        let controller: FetchedResultsController<Item>
        let view: CollapsibleSections<Item>
        let recorder = Recorder()
        var display: SnapshotModel<Item>
        /// Each section's collapsed state and hidden items, as last checked.
        var presentation: [String: (isCollapsed: Bool, hidden: Int)]

        init(
            _ items: [Item], initiallyCollapsed: @escaping @Sendable (String) -> Bool = { _ in false },
            limit: @escaping @Sendable (String) -> SectionLimit? = { _ in nil }
        ) async throws {
            controller = .make(FakeStore(items))
            try await controller.performFetch()
            view = CollapsibleSections(controller, initiallyCollapsed: initiallyCollapsed, limit: limit)
            view.delegate = recorder
            display = CollapsibleSectionsTests.display(view)
            presentation = Self.presentation(of: view)
        }

        static func presentation(of view: CollapsibleSections<Item>) -> [String: (isCollapsed: Bool, hidden: Int)] {
            Dictionary(
                uniqueKeysWithValues: view.sections.map { ($0.name, ($0.isCollapsed, $0.numberOfHiddenObjects)) })
        }

        var ids: [[Int]] { display.ids }

        /// Checks a change set of the view against the contract from the last display to the current one.
        @discardableResult
        mutating func check(_ changes: ChangeSet<Item>, sourceLocation: SourceLocation = #_sourceLocation)
            -> ChangeSet<Item>
        {
            let new = CollapsibleSectionsTests.display(view)
            expectContract(changes, from: display, to: new, sourceLocation: sourceLocation)
            // Updated sections: those, before and after, whose collapsed state or hidden items changed.
            let newPresentation = Self.presentation(of: view)
            let expected = new.names.enumerated().compactMap { index, name -> Int? in
                guard let before = presentation[name], let after = newPresentation[name],
                    before.isCollapsed != after.isCollapsed || before.hidden != after.hidden
                else { return nil }
                return index
            }
            #expect(changes.updatedSections == expected, "\(changes)", sourceLocation: sourceLocation)
            #expect(changes.updatedSectionNames == changes.updatedSections.map { new.names[$0] })
            display = new
            presentation = newPresentation
            return changes
        }

        /// Applies events to the controller, and checks the change set the view delivered, if any.
        @discardableResult
        mutating func apply(_ events: [EntityEvent<Item>], sourceLocation: SourceLocation = #_sourceLocation)
            -> ChangeSet<Item>
        {
            let count = recorder.deliveries.count
            controller.apply(events)
            let changes = recorder.deliveries.count > count ? recorder.changeSets.last! : ChangeSet()
            return check(changes, sourceLocation: sourceLocation)
        }
    }

    static let inbox = (1...8).map { Item($0, section: "Inbox", score: $0) } + [Item(20, section: "Archive", score: 1)]

    @Test func sectionsCanStartCollapsed() async throws {
        let fixture = try await Fixture(Self.inbox, initiallyCollapsed: { $0 == "Archive" })
        let sections = fixture.view.sections
        #expect(sections.map(\.name) == ["Archive", "Inbox"])
        #expect(sections.map(\.isCollapsed) == [true, false])
        #expect(sections.map(\.numberOfObjects) == [1, 8])
        #expect(sections.map(\.numberOfHiddenObjects) == [1, 0])
        #expect(fixture.ids == [[], Array(1...8)])
        #expect(fixture.view.indexPath(for: Item(20)) == nil, "hidden by the collapse")
        #expect(fixture.view.indexPath(for: Item(3)) == ip(1, 2))
        #expect(fixture.view.object(at: ip(1, 2)).id == 3)
    }

    @Test func collapsingAndExpandingHideAndShowTheItems() async throws {
        var fixture = try await Fixture(Self.inbox)
        let collapsed = fixture.check(fixture.view.collapse("Inbox"))
        #expect(collapsed.deletedItemIDs == Array(1...8))
        #expect(collapsed.updatedSections == [1] && collapsed.updatedSectionNames == ["Inbox"])
        #expect(fixture.view.sections[1].isCollapsed)
        let expanded = fixture.check(fixture.view.expand("Inbox"))
        #expect(expanded.insertedItemIDs == Array(1...8) && expanded.updatedSections == [1])
        #expect(fixture.recorder.changeSets == [collapsed, expanded], "each delivered")
        #expect(fixture.view.expand("Inbox").isEmpty, "already expanded")
    }

    @Test func aLimitShowsTheFirstItemsOfACollapsedSection() async throws {
        var fixture = try await Fixture(Self.inbox, limit: { _ in SectionLimit(maximum: 5, whenExceeding: 3) })
        fixture.check(fixture.view.collapse("Inbox"))
        #expect(fixture.ids == [[20], [1, 2, 3]], "Archive has one item: at most 5, all shown")
        #expect(fixture.view.sections[1].numberOfHiddenObjects == 5)
        let raised = fixture.check(fixture.view.setLimit(SectionLimit(maximum: 10), for: "Inbox"))
        #expect(raised.insertedItemIDs == [4, 5, 6, 7, 8] && raised.updatedSections == [1])
    }

    @Test func deletesThatBringASectionUnderItsLimitShowItAll() async throws {
        var fixture = try await Fixture(
            Self.inbox, initiallyCollapsed: { $0 == "Inbox" },
            limit: { _ in SectionLimit(maximum: 5, whenExceeding: 3) })
        #expect(fixture.ids == [[20], [1, 2, 3]])
        let changes = fixture.apply([.deleted(8), .deleted(7), .deleted(2)])
        #expect(fixture.ids == [[20], [1, 3, 4, 5, 6]])
        #expect(changes.deletedItemIDs == [2] && changes.insertedItemIDs == [4, 5, 6])
        #expect(changes.updatedSections == [1], "5 hidden before, none now")
    }

    @Test func insertsThatPushASectionOverItsLimit() async throws {
        var fixture = try await Fixture(
            Array(Self.inbox.prefix(5)), initiallyCollapsed: { _ in true },
            limit: { _ in SectionLimit(maximum: 5, whenExceeding: 3) })
        #expect(fixture.ids == [[1, 2, 3, 4, 5]])
        let changes = fixture.apply([.inserted(Item(9, section: "Inbox", score: 0))])
        #expect(fixture.ids == [[9, 1, 2]])
        #expect(changes.insertedItemIDs == [9] && Set(changes.deletedItemIDs) == [3, 4, 5])
        #expect(changes.updatedSections == [0])
    }

    @Test func itemsInACollapsedSectionChangeNothingDisplayed() async throws {
        var fixture = try await Fixture(Self.inbox, initiallyCollapsed: { $0 == "Archive" })
        let changes = fixture.apply([.updated(Item(20, section: "Archive", score: 1, title: "x"))])
        #expect(changes.isEmpty)
        let added = fixture.apply([.inserted(Item(21, section: "Archive", score: 0))])
        #expect(added.itemChanges.isEmpty && added.updatedSections == [0], "one more hidden item")
    }

    @Test func anItemMovingBetweenACollapsedAndAnExpandedSection() async throws {
        var fixture = try await Fixture(Self.inbox, initiallyCollapsed: { $0 == "Archive" })
        let archived = fixture.apply([.updated(Item(3, section: "Archive", score: 3))])
        #expect(archived.deletedItemIDs == [3] && archived.movedItems.isEmpty)
        let restored = fixture.apply([.updated(Item(20, section: "Inbox", score: 0))])
        #expect(restored.insertedItemIDs == [20] && restored.insertedItems == [ip(1, 0)])
        #expect(fixture.ids == [[], [20, 1, 2, 4, 5, 6, 7, 8]])
    }

    @Test func movesInsideTheDisplayedItemsAreMinimal() async throws {
        var fixture = try await Fixture(Self.inbox)
        let changes = fixture.apply([.updated(Item(2, section: "Inbox", score: 100))])
        #expect(changes.movedItemIDs == [2])
        #expect(changes.updatedItemIDs == [2])
    }

    @Test func aCollapseOfASectionThatDoesNotExistYetIsRemembered() async throws {
        var fixture = try await Fixture(Self.inbox)
        #expect(fixture.check(fixture.view.collapse("Later")).isEmpty)
        let changes = fixture.apply([.inserted(Item(30, section: "Later", score: 1))])
        #expect(changes.insertedSectionNames == ["Later"] && changes.insertedItems.isEmpty)
        #expect(fixture.view.sections.first { $0.name == "Later" }?.isCollapsed == true)
        // It disappears, and comes back collapsed.
        fixture.apply([.deleted(30)])
        fixture.apply([.inserted(Item(31, section: "Later", score: 1))])
        #expect(fixture.view.sections.first { $0.name == "Later" }?.numberOfHiddenObjects == 1)
    }

    @Test func aLimitOfZeroAndAWhenExceedingAboveTheMaximum() async throws {
        #expect(SectionLimit(maximum: 0).whenExceeding == 0)
        #expect(SectionLimit(maximum: 3, whenExceeding: 7).whenExceeding == 3, "never more than the maximum")
        #expect(SectionLimit(maximum: -2, whenExceeding: -1) == SectionLimit(maximum: 0))
        var fixture = try await Fixture(
            Self.inbox, initiallyCollapsed: { _ in true }, limit: { _ in SectionLimit(maximum: 0) })
        #expect(fixture.ids == [[], []])
        fixture.apply([.inserted(Item(9, section: "Inbox", score: 0))])
        #expect(fixture.ids == [[], []])
    }

    @Test func aViewReleasedWhileItsControllerChangesIsFreed() async throws {
        let controller = FetchedResultsController.make(FakeStore(Self.inbox))
        try await controller.performFetch()
        weak var released: CollapsibleSections<Item>?
        do {
            let view = CollapsibleSections(controller)
            released = view
            controller.apply(.deleted(1))
        }
        #expect(released == nil)
        #expect(controller.apply(.deleted(2)).deletedItemIDs == [2])
    }

    @Test(
        "random events, pauses, coalescing and presentations keep the view's chain",
        arguments: [UInt64(61), 62, 63, 64])
    func randomChains(seed: UInt64) async throws {
        var workload = RandomizedModelTests.Workload(seed: seed, idSpace: 60)
        let limits: [SectionLimit?] = [nil, SectionLimit(maximum: 2), SectionLimit(maximum: 4, whenExceeding: 1)]
        var fixture = try await Fixture(
            workload.fetchResult(count: 40), initiallyCollapsed: { $0 == "b" || $0 == "é" },
            limit: { $0 == "é" ? SectionLimit(maximum: 3, whenExceeding: 2) : nil })
        /// Runs a change of the controller, and checks what the view delivered for it, if anything.
        func controllerChange(_ change: () -> Void) {
            let count = fixture.recorder.deliveries.count
            change()
            fixture.check(fixture.recorder.deliveries.count > count ? fixture.recorder.changeSets.last! : ChangeSet())
        }
        for step in 0..<800 {
            let name = workload.sections.randomElement(using: &workload.random)!
            switch Int.random(in: 0..<100, using: &workload.random) {
            case 0..<6: fixture.check(fixture.view.collapse(name))
            case 6..<12: fixture.check(fixture.view.expand(name))
            case 12..<16:
                fixture.check(fixture.view.setLimit(limits.randomElement(using: &workload.random)!, for: name))
            case 16..<19: controllerChange { fixture.controller.pause() }
            case 19..<22: controllerChange { fixture.controller.resume() }
            case 22..<26:
                // Coalescing with an interval no test waits for: what it holds goes out when it is turned
                // off, or the controller pauses, deterministically.
                controllerChange { fixture.controller.coalescingInterval = step % 2 == 0 ? .seconds(600) : .zero }
            default:
                let batch = workload.batch(knownItems: Array(fixture.controller.fetchedObjects))
                controllerChange { fixture.controller.apply(batch) }
            }
            // Without holds, the display is the controller's results, cut by the presentations.
            guard fixture.controller.coalescingInterval == .zero else { continue }
            let expected = SnapshotModel(fixture.controller.snapshot).sections.map { section in
                let shown = fixture.view.sections.first { $0.name == section.name }!
                return (section.name, Array(section.items.prefix(shown.objects.count)))
            }
            #expect(fixture.display == SnapshotModel(sections: expected), "seed \(seed) step \(step)")
            for section in fixture.view.sections where section.isCollapsed {
                let cut = section.numberOfObjects - section.numberOfHiddenObjects
                #expect(cut == section.objects.count)
            }
        }
    }
}
