import Foundation
@_spi(Testing) import LiveResults
import Testing

/// The entity of association tests: an author key, tag keys in the post's own order, and an optional
/// editor key. By default a post's score is its id and its author is `id * 10`.
struct Post: FetchableEntity, CustomStringConvertible {
    var id: Int
    var topic: String
    var score: Int
    var authorID: Int
    var tagIDs: [Int]
    var editorID: Int?

    init(
        _ id: Int, topic: String = "", score: Int? = nil, authorID: Int? = nil, tagIDs: [Int] = [], editorID: Int? = nil
    ) {
        self.id = id
        self.topic = topic
        self.score = score ?? id
        self.authorID = authorID ?? id * 10
        self.tagIDs = tagIDs
        self.editorID = editorID
    }

    var description: String { "#\(id)(\(topic),\(score),a\(authorID))" }
}

/// Collects what a controller of posts reports to its `diagnostics` handler.
final class PostDiagnosticLog: Sendable {
    private let entries = Locked<[ControllerDiagnostic<Post>]>([])

    var handler: @Sendable (ControllerDiagnostic<Post>) -> Void {
        { [self] diagnostic in entries.withLock { $0.append(diagnostic) } }
    }

    var all: [ControllerDiagnostic<Post>] { entries.withLock { $0 } }
}

/// The backend of association requests: it answers `"v<key>"` for every key but the missing ones,
/// records every request, and can be told to fail or to hold requests at a gate.
final class AssociationBackend: Sendable {
    struct Failure: Error, Equatable {}

    private struct State: Sendable {
        var requests: [[Int]] = []
        var missing: Set<Int> = []
        var isFailing = false
        var gate: EventHarness.Gate?
    }

    private let state = Locked(State())

    /// The keys of every request, in the order the requests started.
    var requests: [[Int]] { state.withLock { $0.requests } }
    var requestedKeys: [Int] { requests.flatMap(\.self) }

    var missing: Set<Int> {
        get { state.withLock { $0.missing } }
        set { state.withLock { $0.missing = newValue } }
    }

    var isFailing: Bool {
        get { state.withLock { $0.isFailing } }
        set { state.withLock { $0.isFailing = newValue } }
    }

    /// Holds the requests that start from now on until the returned gate opens.
    func holdRequests() -> EventHarness.Gate {
        let gate = EventHarness.Gate()
        state.withLock { $0.gate = gate }
        return gate
    }

    /// Lets the requests that start from now on through.
    func releaseRequests() { state.withLock { $0.gate = nil } }

    /// Waits until `count` requests have started; returns whether they did in time.
    func started(_ count: Int) async -> Bool {
        await EventHarness.eventually { requests.count >= count }
    }

    func fetch(_ keys: [Int]) async throws -> [Int: String] {
        let gate = state.withLock { state in
            state.requests.append(keys)
            return state.gate
        }
        await gate?.wait()
        let (missing, isFailing) = state.withLock { ($0.missing, $0.isFailing) }
        if isFailing { throw Failure() }
        return Dictionary(uniqueKeysWithValues: keys.filter { !missing.contains($0) }.map { ($0, "v\($0)") })
    }

    func authors(backoff: AssociationBackoff = .default) -> Association<Post, String> {
        Association(key: \.authorID, backoff: backoff) { try await self.fetch($0) }
    }

    func tags() -> Association<Post, [String]> {
        Association(keys: \.tagIDs) { try await self.fetch($0) }
    }

    /// The optional-key form: `fetch` takes `[Int]`, so this compiles only if `\.editorID` (an `Int?`)
    /// picks it rather than the plain form with `Int?` keys.
    func editors() -> Association<Post, String> {
        Association(key: \.editorID) { try await self.fetch($0) }
    }
}

/// The posts a fixture's fetch returns.
final class PostStore: Sendable {
    private let posts: Locked<[Post]>

    init(_ posts: [Post]) { self.posts = Locked(posts) }

    func fetch() -> [Post] { posts.withLock { $0 } }

    func update(_ change: (inout [Post]) -> Void) { posts.withLock { change(&$0) } }
}

/// A loaded controller of posts, sorted by score, with a backend, a memory-pressure signal, a
/// recording delegate and a diagnostics log.
struct PostFixture {
    let store: PostStore
    let backend = AssociationBackend()
    let pressure = MemoryPressureSignal()
    let diagnostics = PostDiagnosticLog()
    let recorder = ChangeRecorder<Post>()
    let controller: FetchedResultsController<Post>
    let authors: Association<Post, String>

    init(
        _ posts: [Post],
        sectioned: Bool = false,
        fetchSize: Int = 10,
        backoff: AssociationBackoff = .default,
        listed: Bool = true
    ) {
        let store = PostStore(posts)
        self.store = store
        authors = backend.authors(backoff: backoff)
        let diagnostics = self.diagnostics
        controller = FetchedResultsController(
            definition: FetchDefinition(
                request: { store.fetch() }, associations: listed ? [authors] : []),
            sortDescriptors: [SortDescriptor(\Post.score)],
            sectionNameKeyPath: sectioned ? \Post.topic : nil,
            memoryPressure: pressure,
            diagnostics: diagnostics.handler
        )
        controller.associatedFetchSize = fetchSize
    }

    static func loaded(
        _ posts: [Post], sectioned: Bool = false, fetchSize: Int = 10, backoff: AssociationBackoff = .default
    ) async throws -> PostFixture {
        let fixture = PostFixture(posts, sectioned: sectioned, fetchSize: fetchSize, backoff: backoff)
        try await fixture.controller.performFetch()
        fixture.controller.delegate = fixture.recorder
        return fixture
    }

    /// `count` posts numbered from 1, with scores 1..., authors 10, 20, ….
    static func numbered(_ count: Int, topic: (Int) -> String = { _ in "" }) -> [Post] {
        (1...count).map { Post($0, topic: topic($0)) }
    }

    var model: SnapshotModel<Post> { SnapshotModel(controller.snapshot) }
    var changeSets: [ChangeSet<Post>] { recorder.changeSets }
    var failures: [any Error] {
        diagnostics.all.compactMap { if case .associationFailed(let error) = $0 { error } else { nil } }
    }

    func post(_ id: Int) -> Post {
        guard let post = controller.object(withID: id) else { preconditionFailure("post \(id) is not shown") }
        return post
    }

    /// The synchronous read, cached or `nil`. (In `async` code the plain call picks the waiting variant.)
    func read<Value>(_ association: Association<Post, Value>, _ post: Post) -> Value? {
        controller.associatedValue(association, for: post)
    }

    /// The synchronous read of the author of the shown post with this id.
    func author(_ id: Int) -> String? {
        read(authors, post(id))
    }

    /// Reads the author of post `id`, and waits until its request is done.
    func readAndSettle(_ id: Int, sourceLocation: SourceLocation = #_sourceLocation) async {
        _ = author(id)
        await settle(sourceLocation: sourceLocation)
    }

    /// Applies an update of the shown post with this id.
    @discardableResult
    func update(_ id: Int, _ change: (inout Post) -> Void) -> ChangeSet<Post> {
        var post = post(id)
        change(&post)
        return controller.apply(.updated(post))
    }

    /// Holds the requests, reads the author of post `id`, and waits until the read's request started.
    /// Open the returned gate to let the request through.
    func heldRead(of id: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> EventHarness.Gate {
        let gate = backend.holdRequests()
        let started = backend.requests.count
        #expect(author(id) == nil, sourceLocation: sourceLocation)
        #expect(await backend.started(started + 1), sourceLocation: sourceLocation)
        return gate
    }

    /// Holds the requests, starts `try await loadAssociatedValue(authors, for:)` for post `id` in a task
    /// (cancelled before the call if `cancelled`), and waits until its request started.
    func heldAsyncRead(
        of id: Int, cancelled: Bool = false, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> (reader: Task<String?, any Error>, gate: EventHarness.Gate) {
        let gate = backend.holdRequests()
        let (controller, authors, post) = (controller, authors, post(id))
        let reader = Task {
            if cancelled { withUnsafeCurrentTask { $0?.cancel() } }
            return try await controller.loadAssociatedValue(authors, for: post)
        }
        #expect(await backend.started(1), sourceLocation: sourceLocation)
        return (reader, gate)
    }

    /// Waits until no request is in flight and every change set is delivered, then checks the caches.
    func settle(sourceLocation: SourceLocation = #_sourceLocation) async {
        let idle = await EventHarness.eventually { controller._associationsAreIdle }
        #expect(idle, "association requests still in flight", sourceLocation: sourceLocation)
        controller._checkAssociationInvariants()
    }
}

extension PostFixture {
    /// Waits for the delegate to have received `count` change sets since the fixture loaded.
    func deliveries(_ count: Int, sourceLocation: SourceLocation = #_sourceLocation) async -> [ChangeSet<Post>] {
        let arrived = await EventHarness.eventually { changeSets.count >= count }
        #expect(arrived, "\(changeSets.count) change sets, not \(count)", sourceLocation: sourceLocation)
        return changeSets
    }

    /// Checks that `changes` reports exactly these shown posts as updated, at their index paths, and
    /// nothing else: the snapshot is unchanged, so the change-set contract holds from it to itself.
    func expectOnlyUpdates(
        _ changes: ChangeSet<Post>, ids: Set<Int>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let model = self.model
        expectContract(changes, from: model, to: model, alsoUpdated: ids, sourceLocation: sourceLocation)
        #expect(Set(changes.updatedItemIDs) == ids, sourceLocation: sourceLocation)
        #expect(changes.updatedItems == changes.updatedItemIDs.compactMap(model.indexPath(of:)))
        #expect(
            changes.deletedItems.isEmpty && changes.insertedItems.isEmpty && changes.movedItems.isEmpty
                && changes.deletedSections.isEmpty && changes.insertedSections.isEmpty,
            "only updates: \(changes)", sourceLocation: sourceLocation)
    }
}
