import Foundation
import LiveResults

/// The entity of most tests: a section, a score to sort by, and a title that is content only.
struct Item: FetchableEntity, Codable, CustomStringConvertible {
    var id: Int
    var section: String
    var score: Int
    var title: String

    init(_ id: Int, section: String = "", score: Int = 0, title: String = "") {
        self.id = id
        self.section = section
        self.score = score
        self.title = title
    }

    var description: String { "#\(id)(\(section),\(score),\(title))" }
}

/// A request that returns whatever the test puts in it, and can be told to fail.
final class FakeStore: Sendable {
    struct Failure: Error, Equatable {}

    private let contents: Locked<(items: [Item], fails: Bool, calls: Int)>

    init(_ items: [Item] = []) {
        contents = Locked((items, false, 0))
    }

    var items: [Item] {
        get { contents.withLock { $0.items } }
        set { contents.withLock { $0.items = newValue } }
    }

    var fails: Bool {
        get { contents.withLock { $0.fails } }
        set { contents.withLock { $0.fails = newValue } }
    }

    var calls: Int { contents.withLock { $0.calls } }

    func fetch() throws -> [Item] {
        try contents.withLock { state in
            state.calls += 1
            if state.fails { throw Failure() }
            return state.items
        }
    }

    func definition(isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true }) -> FetchDefinition<Item> {
        FetchDefinition(request: { try self.fetch() }, isIncluded: isIncluded)
    }
}

extension FetchedResultsController where Entity == Item {
    /// A controller over `store`, sectioned by `section` unless told otherwise, sorted by score.
    static func make(
        _ store: FakeStore,
        sectioned: Bool = true,
        sortDescriptors: [SortDescriptor<Item>] = [SortDescriptor(\Item.score)],
        sectionOrder: SectionOrder = .ascending,
        isIncluded: @escaping @Sendable (Item) -> Bool = { _ in true },
        diagnostics: (@Sendable (ControllerDiagnostic<Item>) -> Void)? = nil
    ) -> FetchedResultsController<Item> {
        FetchedResultsController(
            definition: store.definition(isIncluded: isIncluded),
            sortDescriptors: sortDescriptors,
            sectionNameKeyPath: sectioned ? \Item.section : nil,
            sectionOrder: sectionOrder,
            diagnostics: diagnostics
        )
    }
}
