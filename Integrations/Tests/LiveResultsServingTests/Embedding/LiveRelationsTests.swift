import Foundation
import LiveResults
import LiveResultsServing
import Testing

/// `LiveRelations`: which relationship an embedded resource names (hints, ambiguity), and the objects it
/// answers, read from in-memory tables whose reads are counted.
@Suite("Live relations")
struct LiveRelationsTests {
    struct Author: FetchableEntity, QueryableEntity, Codable {
        var id: Int64
        var name: String
        static let queryColumns: [QueryColumn<Author>] = [QueryColumn("id", \.id), QueryColumn("name", \.name)]
    }

    struct Book: FetchableEntity, QueryableEntity, Codable {
        var id: Int64
        var title: String
        var author_id: Int64?
        var editor_id: Int64?
        static let queryColumns: [QueryColumn<Book>] = [
            QueryColumn("id", \.id), QueryColumn("title", \.title), QueryColumn("author_id", \.author_id),
            QueryColumn("editor_id", \.editor_id),
        ]
    }

    actor Counter {
        var value = 0
        func increment() { value += 1 }
    }

    /// A table in memory whose fetches are counted.
    final class Table<Entity: QueryableEntity>: QueryableSource {
        let rows: [Entity]
        let bus = EventBus<Entity>()
        let reads = Counter()

        init(_ rows: [Entity]) { self.rows = rows }

        func fetchDefinition(for query: LiveQuery<Entity>) -> FetchDefinition<Entity> {
            FetchDefinition(
                request: { [rows, reads] in
                    await reads.increment()
                    return rows.filter(query.isIncluded)
                }, isIncluded: query.isIncluded)
        }

        func subscribe(_ subscriber: EventSubscriber<Entity>) -> EventSubscription { bus.subscribe(subscriber) }
    }

    let authors = Table([Author(id: 1, name: "Ann"), Author(id: 2, name: "Bo")])
    let books = Table([
        Book(id: 1, title: "A", author_id: 1, editor_id: 2), Book(id: 2, title: "B", author_id: 1, editor_id: nil),
        Book(id: 3, title: "C", author_id: nil, editor_id: 1),
    ])

    var relations: LiveRelations {
        var relations = LiveRelations()
        relations.addTable("authors", source: authors)
        relations.addTable("books", source: books)
        relations.addForeignKey(from: "books", column: "author_id", to: "authors")
        relations.addForeignKey(from: "books", column: "editor_id", to: "authors")
        return relations
    }

    func answer<Entity: QueryableEntity & Encodable>(
        _ rows: [Entity], _ select: String, table: String
    ) async throws -> [String?] {
        let select = try SelectList(parsing: select)
        return try await relations.objects(of: rows, select: select, table: table).map {
            $0.map { String(decoding: $0, as: UTF8.self) }
        }
    }

    @Test func twoForeignKeysToOneTableNeedAHintAndTheHintPicksOne() async throws {
        let query = try PostgRESTQuery(parameters: [("select", "title,authors(name)")], table: "books")
        #expect(throws: PostgRESTError.self) { try query.validate(for: Book.self, relations: relations) }
        do {
            try query.validate(for: Book.self, relations: relations)
        } catch {
            #expect(error.code == "PGRST201" && error.status == 300)
        }
        let answered = try await answer(books.rows, "title,editor:authors!editor_id(name)", table: "books")
        #expect(
            answered == [
                #"{"title":"A","editor":{"name":"Bo"}}"#, #"{"title":"B","editor":null}"#,
                #"{"title":"C","editor":{"name":"Ann"}}"#,
            ])
    }

    @Test func theOtherWayAForeignKeyEmbedsAnArrayAndInnerLeavesOutTheRowsWithout() async throws {
        let answered = try await answer(authors.rows, "name,books!author_id(title)", table: "authors")
        #expect(answered == [#"{"name":"Ann","books":[{"title":"A"},{"title":"B"}]}"#, #"{"name":"Bo","books":[]}"#])
        let inner = try await answer(authors.rows, "name,books!author_id!inner(title)", table: "authors")
        #expect(inner == [#"{"name":"Ann","books":[{"title":"A"},{"title":"B"}]}"#, nil])
    }

    @Test func eachLevelReadsItsTableOnceAndLongListsInParts() async throws {
        _ = try await answer(books.rows, "title,author:authors!author_id(name,books!author_id(title))", table: "books")
        let (authorReads, bookReads) = (await authors.reads.value, await books.reads.value)
        #expect(authorReads == 1 && bookReads == 1)
        let many = (1...2_500).map { Book(id: Int64($0), title: "t", author_id: Int64($0), editor_id: nil) }
        let lots = Table((1...2_500).map { Author(id: Int64($0), name: "a\($0)") })
        var relations = LiveRelations()
        relations.addTable("authors", source: lots)
        relations.addTable("books", source: Table(many))
        relations.addForeignKey(from: "books", column: "author_id", to: "authors")
        let objects = try await relations.objects(
            of: many, select: try SelectList(parsing: "id,authors(name)"), table: "books")
        let lotsReads = await lots.reads.value
        #expect(lotsReads == 3, "2,500 ids in reads of at most 1,000")
        #expect(objects.allSatisfy { $0 != nil } && objects.count == 2_500)
        #expect(String(decoding: objects[2_499]!, as: UTF8.self) == #"{"id":2500,"authors":{"name":"a2500"}}"#)
    }

    @Test func aToOneSpreadWritesTheRelatedColumnsInTheRowAndNullsWithoutOne() async throws {
        let answered = try await answer(books.rows, "title,...authors!author_id(writer:name,id)", table: "books")
        #expect(
            answered == [
                #"{"title":"A","writer":"Ann","id":1}"#, #"{"title":"B","writer":"Ann","id":1}"#,
                #"{"title":"C","writer":null,"id":null}"#,
            ])
        let inner = try await answer(books.rows, "title,...authors!editor_id!inner(*)", table: "books")
        #expect(inner == [#"{"title":"A","id":2,"name":"Bo"}"#, nil, #"{"title":"C","id":1,"name":"Ann"}"#])
        let nested = try await answer(
            books.rows, "id,...authors!author_id(...books!author_id(first:title))", table: "books")
        #expect(nested.first == #"{"id":1,"first":["A","B"]}"#)
    }

    @Test func aToManySpreadWritesEachColumnAsAnArrayAndRefusesEmbeddingsInIt() async throws {
        let answered = try await answer(authors.rows, "name,...books!author_id(titles:title,id)", table: "authors")
        #expect(answered == [#"{"name":"Ann","titles":["A","B"],"id":[1,2]}"#, #"{"name":"Bo","titles":[],"id":[]}"#])
        let query = try PostgRESTQuery(
            parameters: [("select", "name,...books!author_id(title,authors!editor_id(name))")], table: "authors")
        #expect(throws: PostgRESTError.self) { try query.validate(for: Author.self, relations: relations) }
        let allowed = try PostgRESTQuery(parameters: [("select", "title,...authors!author_id(name)")], table: "books")
        try allowed.validate(for: Book.self, relations: relations)
    }
}
