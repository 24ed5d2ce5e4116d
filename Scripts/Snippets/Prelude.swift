// What the documentation's snippets may assume without declaring it: `Scripts/check-snippets.sh`
// compiles every ```swift block of the README and of the DocC catalog as a program that imports this
// module (see DEVELOPMENT.md, "Documentation"). Keep it small, and keep its names the ones the
// documents use: a snippet that declares a name of its own (its own `Post`, say) shadows the one here.
@_exported import Foundation
@_exported import LiveResults

// MARK: Entities

/// The author of a post.
public struct Author: Identifiable, Hashable, Codable, Sendable {
    public let id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// A tag of a post.
public struct Tag: Identifiable, Hashable, Codable, Sendable {
    public let id: String
    public var name: String

    public init(id: String, name: String) {
        self.id = id
        self.name = name
    }
}

/// The documents' entity.
public struct Post: FetchableEntity, Hashable, Codable {
    public let id: Int
    public var title: String
    public var topic: String
    public var score: Int
    public var isPublished: Bool
    public var authorID: Author.ID
    public var editorID: Author.ID?
    public var tagIDs: [Tag.ID]
    public var createdAt: Date

    public init(
        id: Int, title: String, topic: String = "swift", score: Int = 0, isPublished: Bool = true,
        authorID: Author.ID = "ana", editorID: Author.ID? = nil, tagIDs: [Tag.ID] = [], createdAt: Date? = nil
    ) {
        self.id = id
        self.title = title
        self.topic = topic
        self.score = score
        self.isPublished = isPublished
        self.authorID = authorID
        self.editorID = editorID
        self.tagIDs = tagIDs
        self.createdAt = createdAt ?? Date(timeIntervalSince1970: Double(id) * 60)
    }
}

/// The example app's entity (Example/README.md, "How the list is set up").
public struct TodoItem: FetchableEntity, Hashable {
    public let id: Int
    public var title: String
    public var project: String
    public var priority: Int
    public var authorID: String?

    public init(id: Int, title: String, project: String, priority: Int, authorID: String? = nil) {
        self.id = id
        self.title = title
        self.project = project
        self.priority = priority
        self.authorID = authorID
    }
}

// MARK: Backends

/// A backend that serves a few posts, authors and tags: `api` and `store` in the documents.
public struct SampleBackend: Sendable {
    public let posts: [Post] = [
        Post(id: 1, title: "Hello, Linux", topic: "swift", score: 10, authorID: "ana", tagIDs: ["linux"]),
        Post(id: 2, title: "Sendable in practice", topic: "swift", score: 25, authorID: "ben"),
        Post(id: 3, title: "Sourdough", topic: "baking", score: 7, authorID: "ana", editorID: "ben"),
    ]
    public let authors = ["ana": Author(id: "ana", name: "Ana Lima"), "ben": Author(id: "ben", name: "Ben Okafor")]
    public let tags = ["linux": Tag(id: "linux", name: "Linux")]

    public init() {}

    public func posts() async throws -> [Post] { posts }
    public func save(_ post: Post) async throws {}
    public func fetchPosts() async throws -> [Post] { posts }
    public func authors(ids: [Author.ID]) async throws -> [Author.ID: Author] {
        authors.filter { ids.contains($0.key) }
    }
    public func tags(ids: [Tag.ID]) async throws -> [Tag.ID: Tag] { tags.filter { ids.contains($0.key) } }
}

public let api = SampleBackend()

// MARK: Pages

/// Where a page of the sample feed starts.
public enum FeedCursor: Sendable {
    case start
    case after(Post.ID)
}

/// A page of the sample feed, as an API would answer.
public struct FeedResponse: Sendable {
    public var posts: [Post]
    public var nextCursor: FeedCursor?
}

extension SampleBackend {
    /// Two posts a page, after a cursor.
    public func posts(after cursor: FeedCursor) async throws -> FeedResponse {
        let rest: ArraySlice<Post>
        switch cursor {
        case .start: rest = posts[...]
        case .after(let id): rest = posts.drop { $0.id != id }.dropFirst()
        }
        let page = Array(rest.prefix(2))
        return FeedResponse(posts: page, nextCursor: rest.count > 2 ? page.last.map { .after($0.id) } : nil)
    }

    /// Page `page` (from 1) of two posts.
    public func posts(page: Int) async throws -> [Post] { Array(posts.dropFirst((page - 1) * 2).prefix(2)) }

    public func posts(offset: Int, limit: Int) async throws -> [Post] { Array(posts.dropFirst(offset).prefix(limit)) }

    /// Up to `limit` posts created before `date` (all when `nil`), newest first.
    public func posts(olderThan date: Date?, limit: Int) async throws -> [Post] {
        Array(
            posts.filter { $0.createdAt < (date ?? .distantFuture) }.sorted { $0.createdAt > $1.createdAt }.prefix(
                limit))
    }
}

/// The client of a message broker: `subscribe` calls `handler` with the payload of each message on a topic.
public final class MessageBroker: Sendable {
    public struct Token: Hashable, Sendable {
        let topic: String
    }

    public init() {}

    public func subscribe(topic: String, handler: @escaping @Sendable (Data) -> Void) -> Token { Token(topic: topic) }
    public func unsubscribe(_ token: Token) {}
}

public let broker = MessageBroker()
public let store = SampleBackend()

/// The example app's repositories.
public struct SampleRepository<Entity: Identifiable & Sendable>: Sendable where Entity.ID: Sendable {
    public let all: [Entity]

    public init(_ all: [Entity]) { self.all = all }

    public func fetchAll() -> [Entity] { all }
    public func entities(withIDs ids: [Entity.ID]) -> [Entity.ID: Entity] {
        Dictionary(all.filter { ids.contains($0.id) }.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }
}

extension SampleRepository where Entity: FetchableEntity, Entity.ID: Comparable {
    /// Up to `limit` entities after the id `cursor` (from the start when `nil`), in id order, and the last
    /// id read as the next page's cursor while more follow.
    public func fetchPage(after cursor: Entity.ID?, limit: Int) -> Page<Entity, Entity.ID?> {
        let sorted = all.sorted { $0.id < $1.id }.filter { cursor == nil || $0.id > cursor! }
        let page = Array(sorted.prefix(limit))
        guard let last = page.last, sorted.count > limit else { return Page(page, next: nil) }
        return Page(page, next: .some(last.id))
    }
}

public let todoRepository = SampleRepository([TodoItem(id: 1, title: "Buy oat milk", project: "Home", priority: 2)])
public let authorRepository = SampleRepository(Array(SampleBackend().authors.values))
public let item = TodoItem(id: 1, title: "Buy oat milk", project: "Home", priority: 2, authorID: "ana")

// MARK: A controller

public let bus = EventBus<Post>()
public let definition = FetchDefinition<Post>(request: { try await store.fetchPosts() }, isIncluded: { $0.isPublished })
public let controller = FetchedResultsController(
    definition: definition,
    sortDescriptors: [SortDescriptor(\Post.score, order: .reverse)],
    sectionNameKeyPath: \Post.topic
)
public let post = Post(id: 1, title: "Hello, Linux", topic: "swift", score: 10, authorID: "ana")
public let authors = Association<Post, Author>(key: \.authorID) { ids in try await api.authors(ids: ids) }
public let memoryPressure = MemoryPressureSignal()
