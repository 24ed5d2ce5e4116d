import Foundation
import LiveResults
import Testing

/// An in-memory server of items in pages of `pageSize`, at integer offsets: the page at offset *o*
/// holds the items at *o* ..< *o* + `pageSize`, says where the next page starts while items remain,
/// and where the previous page starts while *o* > 0. It records every request, can fail, can hold
/// requests in a gate, and can answer a cursor with a page of the test's own.
final class PageServer: Sendable {
    struct Failure: Error, Equatable {}

    private struct State {
        var items: [Item]
        var requests: [Int] = []
        var failingCursors: Set<Int> = []
        var answers: [Int: Page<Item, Int>] = [:]
        var gate: EventHarness.Gate?
    }

    let pageSize: Int
    /// The cursor of the first page.
    let start: Int
    private let state: Locked<State>

    init(_ items: [Item], pageSize: Int, start: Int = 0) {
        self.pageSize = pageSize
        self.start = start
        state = Locked(State(items: items))
    }

    var items: [Item] {
        get { state.withLock { $0.items } }
        set { state.withLock { $0.items = newValue } }
    }

    /// The cursors requested so far, in order.
    var requests: [Int] { state.withLock { $0.requests } }

    /// Makes the requests for these cursors throw ``Failure`` until told otherwise.
    func fail(_ cursors: Set<Int>) { state.withLock { $0.failingCursors = cursors } }

    /// Answers a cursor with this page instead of the items.
    func answer(_ cursor: Int, with page: Page<Item, Int>) { state.withLock { $0.answers[cursor] = page } }

    /// Holds every request from now on until the returned gate opens.
    func holdRequests() -> EventHarness.Gate {
        let gate = EventHarness.Gate()
        state.withLock { $0.gate = gate }
        return gate
    }

    /// Whether `count` requests have started, waiting a bounded time for them.
    func started(_ count: Int) async -> Bool {
        await EventHarness.eventually { requests.count >= count }
    }

    func page(at cursor: Int) async throws -> Page<Item, Int> {
        let gate = state.withLock { state in
            state.requests.append(cursor)
            return state.gate
        }
        await gate?.wait()
        return try state.withLock { state in
            if state.failingCursors.contains(cursor) { throw Failure() }
            if let answer = state.answers[cursor] { return answer }
            return Self.page(of: state.items, at: cursor, size: pageSize)
        }
    }

    /// The page at `cursor` of `items`, by this server's rule.
    static func page(of items: [Item], at cursor: Int, size: Int) -> Page<Item, Int> {
        let range = max(0, cursor)..<min(items.count, max(0, cursor + size))
        return Page(
            range.isEmpty ? [] : Array(items[range]),
            next: cursor + size < items.count ? cursor + size : nil,
            previous: cursor > 0 ? cursor - size : nil)
    }

    func definition(isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true }) -> FetchDefinition<Item> {
        FetchDefinition(firstPage: start, pageRequest: { try await self.page(at: $0) }, isIncluded: isIncluded)
    }

    /// A controller over this server, one section unless told otherwise, sorted by `score`.
    func controller(
        sectioned: Bool = false,
        sortDescriptors: [SortDescriptor<Item>] = [SortDescriptor(\Item.score)],
        isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true },
        diagnostics: (@Sendable (ControllerDiagnostic<Item>) -> Void)? = nil
    ) -> FetchedResultsController<Item> {
        FetchedResultsController(
            definition: definition(isIncluded: isIncluded),
            sortDescriptors: sortDescriptors,
            sectionNameKeyPath: sectioned ? \Item.section : nil,
            diagnostics: diagnostics)
    }
}

/// Items `first...last`, each scored by its id, so that a controller sorted by score shows them by id.
func items(_ ids: ClosedRange<Int>, section: String = "") -> [Item] {
    ids.map { Item($0, section: section, score: $0) }
}
