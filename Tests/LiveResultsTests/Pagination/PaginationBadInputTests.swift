import Foundation
@_spi(Testing) import LiveResults
import LiveResultsTesting
import Testing

/// Pages that fail, repeat themselves, arrive late or come in floods (bad input): each has a
/// documented outcome and leaves the controller consistent.
@Suite("Pagination bad input", .timeLimit(.minutes(5)), .tags(.concurrent))
struct PaginationBadInputTests {
    typealias Fixture = PaginationScenarioTests.Fixture

    var pageFailures: (EventHarness.DiagnosticLog) -> Int {
        { log in log.all.count { if case .pageFailed = $0 { true } else { false } } }
    }

    var droppedPages: (EventHarness.DiagnosticLog) -> Int {
        { log in log.all.count { if case .pageDropped = $0 { true } else { false } } }
    }

    @Test func aFailedPageKeepsWhatIsShownAndCanBeRetried() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        fixture.server.fail([2])
        await #expect(throws: PageServer.Failure.self) { try await fixture.controller.loadNextPage() }
        #expect(fixture.ids == [1, 2])
        #expect(fixture.controller.hasNextPage, "the same page can be loaded again")
        #expect(fixture.controller.pagination.lastError is PageServer.Failure)
        #expect(fixture.controller.pagination.pagesLoaded == 1)
        #expect(!fixture.controller.pagination.isLoadingNextPage)
        #expect(fixture.controller.statistics.failedPages == 1)
        #expect(pageFailures(fixture.log) == 1)
        #expect(fixture.controller.state.isLoaded, "a page failure is not a fetch failure")
        fixture.server.fail([])
        try await fixture.next()
        #expect(fixture.ids == [1, 2, 3, 4])
        #expect(fixture.controller.pagination.lastError == nil, "cleared by the next success")
        #expect(fixture.server.requests == [0, 2, 2])
    }

    @Test func aRefetchThatFailsOnALaterPageKeepsEverythingShown() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        try await fixture.next()
        fixture.server.fail([2])
        await #expect(throws: PageServer.Failure.self) { try await fixture.controller.performFetch() }
        #expect(fixture.ids == [1, 2, 3, 4])
        #expect(fixture.controller.state.error is PageServer.Failure)
        #expect(fixture.controller.pagination.pagesLoaded == 2)
        fixture.server.fail([])
        try await fixture.next()
        #expect(fixture.ids == Array(1...6), "the cursors shown still lead on")
    }

    @Test func aPageRepeatingALiveInsertUpdatesIt() async throws {
        var fixture = Fixture(items(1...4), pageSize: 2)
        try await fixture.fetch()
        fixture.apply([.inserted(Item(3, score: 3, title: "live"))])
        let changes = try await fixture.next()
        #expect(changes.insertedItemIDs == [4])
        #expect(changes.updatedItemIDs == [3], "the page's version replaces the live one")
        #expect(fixture.controller.object(withID: 3)?.title == "")
    }

    @Test func duplicateIDsInsideOnePageKeepTheFirstAndAreReported() async throws {
        var fixture = Fixture(items(1...3), pageSize: 2)
        fixture.server.answer(2, with: Page([Item(3, score: 3), Item(4, score: 4), Item(3, score: 9)], next: nil))
        try await fixture.fetch()
        let changes = try await fixture.next()
        #expect(changes.insertedItemIDs == [3, 4])
        #expect(fixture.controller.object(withID: 3)?.score == 3)
        #expect(fixture.log.duplicateIDs == [[3]])
        #expect(fixture.controller.statistics.duplicateFetchedIDs == 1)
    }

    @Test func duplicateIDsInsideAFirstPageAreReportedAsInAnyFetch() async throws {
        var fixture = Fixture([], pageSize: 3)
        fixture.server.answer(0, with: Page([Item(1, score: 1), Item(1, score: 5), Item(2, score: 2)], next: nil))
        try await fixture.fetch()
        #expect(fixture.ids == [1, 2])
        #expect(fixture.log.duplicateIDs == [[1]])
    }

    @Test func aPageOfRejectedEntitiesChangesNothing() async throws {
        var fixture = Fixture(items(1...4), pageSize: 2, isIncluded: { $0.id < 3 })
        try await fixture.fetch()
        let changes = try await fixture.next()
        #expect(changes.isEmpty)
        #expect(fixture.controller.pagination.pagesLoaded == 2)
    }

    @Test func anEmptyPageWithANextCursorAdvances() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        fixture.server.answer(2, with: Page([], next: 4))
        try await fixture.fetch()
        #expect(try await fixture.next().isEmpty)
        #expect(fixture.controller.hasNextPage)
        try await fixture.next()
        #expect(fixture.ids == [1, 2, 5, 6])
        #expect(fixture.server.requests == [0, 2, 4])
    }

    @Test func aPageLargerThanEverythingShown() async throws {
        var fixture = Fixture(items(1...600), pageSize: 1)
        fixture.server.answer(1, with: Page(Array(items(1...600).dropFirst().shuffled()), next: nil))
        try await fixture.fetch()
        let changes = try await fixture.next()
        #expect(changes.insertedItems.count == 599)
        #expect(fixture.ids == Array(1...600))
        fixture.controller.snapshot._checkInvariants()
    }

    @Test func loadingBeforeTheFirstFetchMakesNoRequest() async throws {
        let fixture = Fixture(items(1...4), pageSize: 2)
        #expect(try await fixture.controller.loadNextPage().isEmpty)
        #expect(try await fixture.controller.loadPreviousPage().isEmpty)
        #expect(fixture.server.requests.isEmpty)
        #expect(fixture.controller.pagination.pagesLoaded == 0)
    }

    @Test func fiftyTasksAtOnceShareOneRequest() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        let gate = fixture.server.holdRequests()
        let controller = fixture.controller
        let recorder = LiveResultsTesting.ChangeRecorder(controller)
        let results = try await withThrowingTaskGroup(of: ChangeSet<Item>.self) { group in
            for _ in 0..<50 { group.addTask { try await controller.loadNextPage() } }
            #expect(await fixture.server.started(2))
            #expect(await EventHarness.eventually { controller.pagination.isLoadingNextPage })
            gate.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        // Callers that came after the page landed load the page after it; the others share one.
        let requests = fixture.server.requests
        #expect(requests.first == 0 && requests.dropFirst().first == 2)
        #expect(requests == Array([0, 2, 4].prefix(requests.count)), "each page requested once")
        let pages = results.filter { !$0.isEmpty }
        #expect(pages.filter { $0.insertedItemIDs == [3, 4] }.count >= 1)
        #expect(Set(pages.map(\.insertedItemIDs)).isSubset(of: [[3, 4], [5, 6]]))
        // A caller that came after page 2 landed may have loaded page 3 already: the change sets chain
        // in the order of the pages.
        let loaded = [[3, 4], [5, 6]].filter { page in pages.contains { $0.insertedItemIDs == page } }
        #expect(await EventHarness.eventually { recorder.changeSets.count == loaded.count })
        #expect(recorder.changeSets.map(\.insertedItemIDs) == loaded)
        try recorder.verifyChain()
        #expect(
            SnapshotModel(recorder.snapshots.last!) == SnapshotModel(controller.snapshot),
            "the pages' change sets lead from the first page to what is shown")
        #expect(fixture.controller.pagination.pagesLoaded == requests.count)
    }

    @Test func concurrentCallsWhileOneLoadsShareItsChangeSet() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        let gate = fixture.server.holdRequests()
        let controller = fixture.controller
        let first = Task { try await controller.loadNextPage() }
        #expect(await fixture.server.started(2))
        let second = Task { try await controller.loadNextPage() }
        // Real time: usually lets the second call join the load in flight before it ends (nothing shows a call
        // joining); a second call after it would load the next page, and the expectations would fail.
        try await Task.sleep(for: .milliseconds(5))
        gate.open()
        let (a, b) = (try await first.value, try await second.value)
        #expect(a == b && a.insertedItemIDs == [3, 4])
        #expect(fixture.server.requests == [0, 2])
    }

    @Test func aPageThatArrivesAfterAResetIsDropped() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        let gate = fixture.server.holdRequests()
        let controller = fixture.controller
        let load = Task { try await controller.loadNextPage() }
        #expect(await fixture.server.started(2))
        fixture.controller.reset()
        #expect(!fixture.controller.pagination.isLoadingNextPage)
        gate.open()
        #expect(try await load.value.isEmpty)
        #expect(fixture.controller.snapshot.isEmpty, "the late page did not land")
        #expect(fixture.controller.statistics.droppedPages == 1)
        #expect(droppedPages(fixture.log) == 1)
        #expect(fixture.controller.pagination.pagesLoaded == 0)
    }

    @Test func aPageThatArrivesAfterARefetchStartedIsDropped() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        let pageGate = fixture.server.holdRequests()
        let controller = fixture.controller
        let load = Task { try await controller.loadNextPage() }
        #expect(await fixture.server.started(2))
        let refetchGate = fixture.server.holdRequests()
        let refetch = Task { try await controller.performFetch() }
        #expect(await fixture.server.started(3))
        #expect(try await controller.loadNextPage().isEmpty, "a fetch in flight reloads the pages itself")
        pageGate.open()
        #expect(try await load.value.isEmpty)
        #expect(fixture.ids == [1, 2], "the late page did not land")
        refetchGate.open()
        fixture.check(try await refetch.value)
        #expect(fixture.ids == [1, 2])
        #expect(fixture.controller.statistics.droppedPages == 1)
        #expect(fixture.controller.pagination.pagesLoaded == 1)
        #expect(fixture.server.requests == [0, 2, 0])
    }

    @Test func aPageThatFailsAfterAResetIsNotReported() async throws {
        var fixture = Fixture(items(1...6), pageSize: 2)
        try await fixture.fetch()
        fixture.server.fail([2])
        let gate = fixture.server.holdRequests()
        let controller = fixture.controller
        let load = Task { try await controller.loadNextPage() }
        #expect(await fixture.server.started(2))
        fixture.controller.reset()
        gate.open()
        await #expect(throws: PageServer.Failure.self) { try await load.value }
        #expect(fixture.controller.pagination.lastError == nil)
        #expect(fixture.controller.statistics.failedPages == 0)
        #expect(pageFailures(fixture.log) == 0)
    }

    @Test func aControllerReleasedWhileAPageLoadsIsFreed() async throws {
        let server = PageServer(items(1...6), pageSize: 2)
        weak var released: FetchedResultsController<Item>?
        let gate: EventHarness.Gate
        let load: Task<Int, any Error>
        do {
            let controller = server.controller()
            released = controller
            try await controller.performFetch()
            gate = server.holdRequests()
            load = Task { try await controller.loadNextPage().insertedItems.count }
        }
        #expect(await server.started(2))
        gate.open()
        #expect(try await load.value == 2)
        #expect(await EventHarness.eventually { released == nil }, "nothing keeps the controller once the page landed")
    }
}
