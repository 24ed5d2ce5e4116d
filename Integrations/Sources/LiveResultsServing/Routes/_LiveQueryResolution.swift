import Foundation
import HTTPTypes
import LiveResults
import NIOCore

/// How a request of a live-queries route finds its query, its results and its answer.
enum _LiveQueryResolution {
    /// What a request asks for: PostgREST's parameters, and the live query they make.
    struct Asked<Entity: QueryableEntity>: Sendable {
        let query: PostgRESTQuery
        let request: LiveQueryRequest<Entity>
    }

    /// Reads `request`'s query by `route`, with `conditions` ANDed to it.
    ///
    /// - Throws: PostgREST's error (see `PostgRESTQuery.validate(for:relations:)`); `PGRST100` for what
    ///   `LiveQueryRequest` refuses (a column not allowed, a value not of its column's kind, a limit out of
    ///   range); `PGRST106` for an `Accept-Profile` other than `public`.
    static func asked<Entity: QueryableEntity>(
        _ request: LiveResultsRequest, route: _LiveQueryRoute, conditions: [LiveQueryFilter], as entity: Entity.Type
    ) throws -> Asked<Entity> {
        do throws(PostgRESTError) {
            try PostgRESTProfile.check(request.headers[HTTPField.Name("Accept-Profile")!])
            let query = try PostgRESTQuery(parameters: parameters(of: request), table: route.table)
            try query.validate(for: Entity.self, relations: route.relations)
            var rules = route.rules
            if let column = query.sections {
                guard Entity.queryColumns.contains(where: { $0.name == column }) else {
                    throw PostgRESTError.undefinedColumn(column, of: route.table)
                }
                guard route.sections.contains(column) else {
                    throw PostgRESTError.badParameter("sections cannot be by \(column)")
                }
                rules.sectionedBy = column
            }
            do throws(LiveQueryError) {
                let asked = try LiveQueryRequest<Entity>(
                    parameters: query.queryParameters, rules: rules, conditions: conditions)
                return Asked(query: query, request: asked)
            } catch {
                throw PostgRESTError.badParameter(error.description, details: "the parameter \(error.parameter)")
            }
        } catch {
            throw LiveResultsRefusal.postgREST(error)
        }
    }

    /// The results of `query`, held in the registry of `embeddings` (which count toward its limit); with
    /// `current`, showing every change committed before the call (read-your-writes).
    ///
    /// - Throws: `503` with `Retry-After` when the route is full, the query's results cannot be fetched, or
    ///   (`current`) they could not catch up with the source in time.
    static func results<Source: QueryableSource>(
        of query: LiveQuery<Source.Entity>, in embeddings: _LiveEmbeddings<Source>, route: _LiveQueryRoute,
        current: Bool = false
    ) async throws -> LiveQueryResults<Source.Entity> {
        try await refusingFailures(of: "the query's results", route: route) {
            try await embeddings.results(for: query, current: current)
        }
    }

    /// What `body` returns; its error as the route's refusal: PostgREST's error for the query, ``full`` when the
    /// route holds its most live queries, the application's own response as it is, and any other failure as `503`
    /// saying that `what` could not be fetched.
    private static func refusingFailures<Value>(
        of what: String, route: _LiveQueryRoute, _ body: () async throws -> Value
    ) async throws -> Value {
        do {
            return try await body()
        } catch let error as PostgRESTError {
            throw LiveResultsRefusal.postgREST(error)
        } catch LiveQueryRegistryError.full {
            throw full
        } catch is LiveQuerySynchronizationError {
            throw _StreamRefusal.refusal(
                reason: "the live results could not catch up with the latest writes in time; try again later",
                postgREST: true, code: "PGRST000")
        } catch let error where route.respondsItself(error) {
            throw error
        } catch {
            throw _StreamRefusal.refusal(
                reason: "\(what) could not be fetched; try again later", postgREST: true, code: "PGRST000")
        }
    }

    /// The refusal of a query when the route holds its most live queries, plain or embedding, all in use.
    static var full: LiveResultsRefusal {
        _StreamRefusal.refusal(reason: "too many live queries; try again later", postgREST: true)
    }

    /// The window `request` asks for, of its query's results held in the registry of `embeddings` (a request
    /// whose `select=` embeds resources is served by ``embeddedSource(for:embeddings:route:conditions:)``).
    static func source<Source: QueryableSource>(
        for request: LiveResultsRequest, embeddings: _LiveEmbeddings<Source>, route: _LiveQueryRoute,
        conditions: [LiveQueryFilter]
    ) async throws -> _UpdatesSource<Source.Entity> where Source.Entity: Codable {
        let asked = try asked(request, route: route, conditions: conditions, as: Source.Entity.self)
        let results = try await results(of: asked.request.query, in: embeddings, route: route)
        // Versions named by contents: a client that reconnects to another process of the service, following
        // the same database, resumes with one catch-up when that process's window held its contents.
        let window = results.window(asked.request.window)
        window.nameVersionsByContents(scope: asked.request.query.key)
        return .window(window, holding: results)
    }

    /// The window `request` asks for of its embedded rows, kept live by the `LiveEmbedding` of its query and
    /// `select=` (shared by the streams that ask for both, and counted as one live query).
    ///
    /// - Throws: PostgREST's error for the query; `503` with `Retry-After` when the route is full, or its rows
    ///   or an embedded table cannot be read.
    static func embeddedSource<Source: QueryableSource>(
        for request: LiveResultsRequest, embeddings: _LiveEmbeddings<Source>, route: _LiveQueryRoute,
        conditions: [LiveQueryFilter]
    ) async throws -> _UpdatesSource<EmbeddedRow<Source.Entity>> where Source.Entity: Codable {
        let asked = try asked(request, route: route, conditions: conditions, as: Source.Entity.self)
        let select = asked.query.select
        let held = try await refusingFailures(of: "the query's embedded rows", route: route) {
            try await embeddings.embedding(of: select, in: asked.request.query)
        }
        let window = held.embedding.window(asked.request.window)
        window.nameVersionsByContents(scope: asked.request.query.key + " select=" + select.identity)
        return .window(window, holding: held)
    }

    /// Whether `request`'s `select=` embeds resources (a `select=` that does not parse is refused by the
    /// routes of the rows).
    static func embeds(_ request: LiveResultsRequest, route: _LiveQueryRoute) -> Bool {
        guard let query = try? PostgRESTQuery(parameters: parameters(of: request), table: route.table) else {
            return false
        }
        return !query.select.embeddedResources.isEmpty
    }

    /// PostgREST's answer to `request`: the rows of its window, as an array or one object.
    ///
    /// Read-your-writes, as PostgREST's own answers: a query already live is synchronized with its source first
    /// (a fetched one is current), so that the answer holds every change committed before the request. Embedded
    /// rows are read from their tables' sources for the answer, current too.
    static func answer<Source: QueryableSource>(
        to request: LiveResultsRequest, format: PostgRESTFormat, embeddings: _LiveEmbeddings<Source>,
        route: _LiveQueryRoute,
        conditions: [LiveQueryFilter], encoder: JSONEncoder
    ) async throws -> LiveResultsResponse where Source.Entity: Codable {
        let asked = try asked(request, route: route, conditions: conditions, as: Source.Entity.self)
        let results = try await results(of: asked.request.query, in: embeddings, route: route, current: true)
        let objects = results.controller.snapshot.fetchedObjects
        let preferences = PostgRESTPreferences(headers: request.headers[values: HTTPField.Name("Prefer")!])
        let select = asked.query.select
        do {
            let answer: PostgRESTAnswer
            if select.embeddedResources.isEmpty {
                let (offset, rows) = window(asked.request.window, of: objects)
                answer = try PostgRESTAnswer.read(
                    rows: rows, offset: offset, total: preferences.countsRows ? objects.count : nil, format: format,
                    preferences: preferences, encoder: RowEncoder<Source.Entity>(select: select, encoder: encoder))
            } else {
                answer = try await embeddedAnswer(
                    of: objects, asked: asked, route: route, format: format, preferences: preferences, encoder: encoder)
            }
            return LiveResultsResponse(answer)
        } catch let error as PostgRESTError {
            throw LiveResultsRefusal.postgREST(error)
        }
    }

    /// The answer of a request that embeds resources. Without `!inner`, only the window's rows are embedded;
    /// with it, every row of the query is, since the rows it leaves out come before the window is taken.
    static func embeddedAnswer<Entity: QueryableEntity & Encodable>(
        of objects: some RandomAccessCollection<Entity>, asked: Asked<Entity>, route: _LiveQueryRoute,
        format: PostgRESTFormat,
        preferences: PostgRESTPreferences, encoder: JSONEncoder
    ) async throws -> PostgRESTAnswer {
        let select = asked.query.select
        let filters = select.embeddedResources.contains(where: \.filtersParents)
        let rendered: [Data]
        let (offset, total): (Int, Int)
        if filters {
            let kept = try await embed(objects, select: select, route: route, encoder: encoder).compactMap(\.self)
            let window = window(asked.request.window, of: kept)
            (rendered, offset, total) = (Array(window.rows), window.offset, kept.count)
        } else {
            let window = window(asked.request.window, of: objects)
            let embedded = try await embed(window.rows, select: select, route: route, encoder: encoder)
            (rendered, offset, total) = (embedded.compactMap(\.self), window.offset, objects.count)
        }
        return try PostgRESTAnswer.read(
            objects: rendered, offset: offset, total: preferences.countsRows ? total : nil, format: format,
            preferences: preferences)
    }

    /// The objects of `rows` with what `select` embeds (see `LiveRelations.objects(of:select:table:encoder:)`).
    ///
    /// - Throws: PostgREST's error for a relationship; `503` with `Retry-After` when an embedded table cannot be read.
    static func embed<Entity: QueryableEntity & Encodable>(
        _ rows: some Sequence<Entity>, select: SelectList, route: _LiveQueryRoute, encoder: JSONEncoder
    ) async throws -> [Data?] {
        do {
            return try await route.relations.objects(of: rows, select: select, table: route.table, encoder: encoder)
        } catch let error as PostgRESTError {
            throw error
        } catch {
            throw _StreamRefusal.refusal(
                reason: "the embedded rows could not be fetched; try again later", postgREST: true, code: "PGRST000")
        }
    }

    /// The rows of `range` among `rows`, and the position the request asked for first (past the end, for a
    /// `Content-Range` that PostgREST refuses).
    static func window<Rows: RandomAccessCollection>(
        _ range: WindowRange, of rows: Rows
    ) -> (offset: Int, rows: Rows.SubSequence) {
        let positions = range.positions(count: rows.count)
        let offset = if case .range(let offset, _) = range { offset } else { positions.lowerBound }
        let start = rows.index(rows.startIndex, offsetBy: positions.lowerBound)
        return (offset, rows[start..<rows.index(start, offsetBy: positions.count)])
    }

    /// The request's query parameters as PostgREST reads them (`+` a space, then percent-decoded), in order.
    static func parameters(of request: LiveResultsRequest) -> [(String, String)] {
        PostgRESTQuery.parameters(fromQuery: request.query)
    }
}
