import Foundation
import LiveResults
import Testing

/// The ready-made page kinds against a small in-memory server, up to where their stop rule ends the paging.
@Suite("Page kinds", .timeLimit(.minutes(5)))
struct PageKindTests {
    /// A server of `count` items that records the arguments of every request.
    final class Server: Sendable {
        let all: [Item]
        private let log = Locked<[String]>([])

        init(count: Int) {
            all = count == 0 ? [] : items(1...count)
        }

        var requests: [String] { log.withLock { $0 } }

        func record(_ request: String) { log.withLock { $0.append(request) } }

        /// Page `number` (from 1) of `size`.
        func page(_ number: Int, size: Int) -> [Item] {
            record("page \(number)")
            return Array(all.dropFirst((number - 1) * size).prefix(size))
        }

        func slice(offset: Int, limit: Int) -> [Item] {
            record("offset \(offset) limit \(limit)")
            return Array(all.dropFirst(offset).prefix(limit))
        }

        /// Up to `limit` items with a score above `after`, newest (highest score) last.
        func newer(after: Int?, limit: Int) -> [Item] {
            record("after \(after.map(String.init) ?? "nil")")
            return Array(all.filter { $0.score > (after ?? .min) }.prefix(limit))
        }
    }

    /// Loads every page, checking each change set; returns the ids shown after each page.
    func loadAll(_ definition: FetchDefinition<Item>) async throws -> (
        shown: [[Int]], controller: FetchedResultsController<Item>
    ) {
        let controller = FetchedResultsController(
            definition: definition, sortDescriptors: [SortDescriptor(\Item.score)])
        var before = SnapshotModel(controller.snapshot)
        var changes = try await controller.performFetch()
        var shown: [[Int]] = []
        while true {
            let after = SnapshotModel(controller.snapshot)
            expectContract(changes, from: before, to: after)
            before = after
            shown.append(controller.fetchedObjects.map(\.id))
            guard controller.hasNextPage else { break }
            changes = try await controller.loadNextPage()
        }
        return (shown, controller)
    }

    @Test(arguments: [
        (count: 7, pages: ["page 1", "page 2", "page 3"]), (count: 6, pages: ["page 1", "page 2", "page 3"]),
        (count: 0, pages: ["page 1"]),
    ])
    func numberedPagesStopAtAShortPage(count: Int, pages: [String]) async throws {
        let server = Server(count: count)
        let (shown, controller) = try await loadAll(.numberedPages(from: 1, pageSize: 3) { server.page($0, size: 3) })
        #expect(server.requests == pages, "a full last page needs one more, empty, page to know it was the last")
        #expect(shown.last == server.all.map(\.id))
        #expect(controller.pagination.pagesLoaded == pages.count)
    }

    @Test func numberedPagesStartFromTheGivenNumber() async throws {
        let server = Server(count: 9)
        let (shown, _) = try await loadAll(.numberedPages(from: 2, pageSize: 3) { server.page($0, size: 3) })
        #expect(server.requests == ["page 2", "page 3", "page 4"])
        #expect(shown == [[4, 5, 6], [4, 5, 6, 7, 8, 9], [4, 5, 6, 7, 8, 9]])
    }

    /// The last page number there is ends the pages rather than overflowing (a cursor read back from a cache
    /// can be any number).
    @Test func numberedPagesEndAtTheLastNumber() async throws {
        let full = (1...3).map { Item($0, score: $0) }
        let (shown, controller) = try await loadAll(.numberedPages(from: .max - 1, pageSize: 3) { _ in full })
        #expect(shown == [[1, 2, 3], [1, 2, 3]])
        #expect(controller.pagination.pagesLoaded == 2 && !controller.hasNextPage)
    }

    @Test func offsetPagesAdvanceByWhatEachPageHeld() async throws {
        let server = Server(count: 5)
        let (shown, _) = try await loadAll(.offsetPages(limit: 2) { server.slice(offset: $0, limit: $1) })
        #expect(server.requests == ["offset 0 limit 2", "offset 2 limit 2", "offset 4 limit 2"])
        #expect(shown == [[1, 2], [1, 2, 3, 4], [1, 2, 3, 4, 5]])
    }

    @Test func keyedPagesPassTheKeyOfEachPagesLastEntity() async throws {
        let server = Server(count: 5)
        let (shown, _) = try await loadAll(
            .keyedPages(by: \.score, limit: 2) { after in server.newer(after: after, limit: 2) })
        #expect(server.requests == ["after nil", "after 2", "after 4"])
        #expect(shown.last == [1, 2, 3, 4, 5])
    }

    @Test func keyedPagesUseTheLastEntityInThePagesOwnOrder() async throws {
        // The server returns each page newest first; the cursor is the page's last entity, the oldest.
        let server = Server(count: 4)
        let definition = FetchDefinition<Item>.keyedPages(by: \.score, limit: 2) { (before: Int?) in
            server.record("before \(before.map(String.init) ?? "nil")")
            return Array(server.all.reversed().filter { $0.score < (before ?? .max) }.prefix(2))
        }
        let (shown, _) = try await loadAll(definition)
        #expect(server.requests == ["before nil", "before 3", "before 1"])
        #expect(shown.last == [1, 2, 3, 4])
    }

    @Test func theKindsTakeAnInclusionRuleAndAssociations() async throws {
        let server = Server(count: 4)
        let tags = Association<Item, String>(key: \.title) { keys in
            Dictionary(uniqueKeysWithValues: keys.map { ($0, "tag " + $0) })
        }
        let definition = FetchDefinition<Item>.offsetPages(limit: 2, isIncluded: { $0.id != 3 }, associations: [tags]) {
            server.slice(offset: $0, limit: $1)
        }
        let (shown, controller) = try await loadAll(definition)
        #expect(shown.last == [1, 2, 4])
        #expect(try await controller.loadAssociatedValue(tags, for: Item(1, score: 1)) == "tag ")
    }

    @Test func aCustomCursorCanBeAnyType() async throws {
        enum FeedCursor: Sendable, Equatable {
            case start
            case after(String)
        }
        let requested = Locked<[FeedCursor]>([])
        let feed = FetchDefinition<Item>(
            firstPage: FeedCursor.start,
            pageRequest: { cursor in
                requested.withLock { $0.append(cursor) }
                switch cursor {
                case .start: return Page(items(1...2), next: .after("b"))
                case .after: return Page(items(3...3), next: nil)
                }
            },
            isIncluded: #Predicate<Item> { $0.id > 1 }
        )
        let (shown, _) = try await loadAll(feed)
        #expect(shown == [[2], [2, 3]])
        #expect(requested.withLock { $0 } == [.start, .after("b")])
    }

    @Test func aPaginatedDefinitionsRequestFetchesTheFirstPage() async throws {
        let server = Server(count: 5)
        let definition = FetchDefinition<Item>.numberedPages(from: 1, pageSize: 2) { server.page($0, size: 2) }
        #expect(try await definition.request().map(\.id) == [1, 2])
    }
}
