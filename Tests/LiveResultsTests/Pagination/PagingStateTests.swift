import Foundation
import Testing

@testable import LiveResults

/// The pagination state machine and the fold of a fetch's pages, driven synchronously.
@Suite("Paging state")
struct PagingStateTests {
    typealias Paging = _Paging<Item>

    func loaded(_ entities: [Item] = [], next: Int?, previous: Int? = nil) -> _PageSource<Item>.LoadedPage {
        .init(entities: entities, next: next, previous: previous)
    }

    func chain(next: Int?, previous: Int? = nil, forward: Int = 1, backward: Int = 0) -> _PageChain<Item> {
        _PageChain(pages: [], next: next, previous: previous, forwardPages: forward, backwardPages: backward)
    }

    let idle = Task<ChangeSet<Item>, any Error> { ChangeSet() }

    @Test func nothingLoadsBeforeAFetchOrDuringOne() {
        var paging = Paging()
        paging.fetched(chain(next: 2))
        guard case .nothing = paging.start(.next, isLive: false, isFetching: false) else {
            Issue.record("not live: nothing")
            return
        }
        guard case .nothing = paging.start(.next, isLive: true, isFetching: true) else {
            Issue.record("fetching: nothing")
            return
        }
        guard case .nothing = paging.start(.previous, isLive: true, isFetching: false) else {
            Issue.record("no previous cursor: nothing")
            return
        }
    }

    @Test func aLoadInFlightIsJoinedAndItsTokenIsCurrentUntilItLands() {
        var paging = Paging()
        paging.fetched(chain(next: 2))
        guard case .request(let cursor, let token) = paging.start(.next, isLive: true, isFetching: false) else {
            Issue.record("expected a request")
            return
        }
        #expect(cursor as? Int == 2)
        paging.setLoad(Paging.Load(token: token, task: idle), .next)
        #expect(paging.publicState.isLoadingNextPage && !paging.publicState.isLoadingPreviousPage)
        guard case .join = paging.start(.next, isLive: true, isFetching: false) else {
            Issue.record("expected to join")
            return
        }
        #expect(paging.isCurrent(token, .next) && !paging.isCurrent(token, .previous))
        paging.pageArrived(loaded(next: 4), .next)
        #expect(!paging.isCurrent(token, .next))
        #expect(paging.nextCursor as? Int == 4)
        #expect(paging.publicState.pagesLoaded == 2)
        #expect(paging.reloadPlan == (2, 0))
    }

    @Test func aFailureKeepsTheCursorAndTheNextSuccessClearsTheError() {
        var paging = Paging()
        paging.fetched(chain(next: 2, previous: 0))
        paging.setLoad(Paging.Load(token: 0, task: idle), .previous)
        paging.pageFailed(PageServer.Failure(), .previous)
        #expect(paging.previousCursor as? Int == 0)
        #expect(paging.publicState.lastError is PageServer.Failure)
        #expect(!paging.publicState.isLoadingPreviousPage)
        paging.pageArrived(loaded(next: 99, previous: nil), .previous)
        #expect(paging.previousCursor == nil, "a previous page reads only its previous cursor")
        #expect(paging.nextCursor as? Int == 2)
        #expect(paging.publicState.lastError == nil)
        #expect(paging.reloadPlan == (1, 1))
    }

    @Test func aFetchOrAResetLeavesLoadsInFlightBehind() {
        var paging = Paging()
        paging.fetched(chain(next: 2, forward: 3))
        guard case .request(_, let token) = paging.start(.next, isLive: true, isFetching: false) else {
            Issue.record("expected a request")
            return
        }
        paging.setLoad(Paging.Load(token: token, task: idle), .next)
        paging.fetchStarted()
        #expect(!paging.isCurrent(token, .next))
        #expect(paging.reloadPlan == (3, 0), "a fetch reloads as many pages as are shown")
        paging.forget()
        #expect(paging.publicState.pagesLoaded == 0 && !paging.publicState.hasNextPage)
        paging.fetched(chain(next: 2))
        guard case .request(_, let newToken) = paging.start(.next, isLive: true, isFetching: false) else {
            Issue.record("expected a request")
            return
        }
        #expect(newToken != token, "tokens are never reused, so a late page cannot pass for a new one")
    }

    @Test func aSinglePageFoldsToItself() {
        let page = [Item(1), Item(1, title: "again"), Item(2)]
        let folded = _PageChain(pages: [page], next: nil, previous: nil, forwardPages: 1, backwardPages: 0)
            .folded { _ in true }
        #expect(folded.entities == page, "replaceAll checks a single page itself")
        #expect(folded.duplicateIDs.isEmpty)
    }

    @Test func laterPagesUpdateInPlaceRemoveAndReinsert() {
        let pages = [
            [Item(1), Item(2), Item(1, title: "repeated")],
            [Item(2, title: "updated"), Item(3), Item(1, score: -1)],
            [Item(4, score: -1), Item(1, title: "back")],
            [Item(4)],
        ]
        let folded = _PageChain(pages: pages, next: nil, previous: nil, forwardPages: 4, backwardPages: 0)
            .folded { $0.score >= 0 }
        #expect(
            folded.entities == [Item(2, title: "updated"), Item(3), Item(1, title: "back"), Item(4)],
            "1 is removed by an excluded version and inserted again later; 4 is rejected, then inserted")
        #expect(folded.duplicateIDs == [1])
    }
}
