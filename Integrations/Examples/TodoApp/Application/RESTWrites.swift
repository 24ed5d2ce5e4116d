import Foundation
import HTTPTypes
import LiveResults
import LiveResultsServing
import LiveResultsWireSupport

/// The writes of a table in PostgREST's form: `POST path` (an object or an array), `PATCH path?FILTERS`,
/// `DELETE path?FILTERS`, and `PATCH`/`DELETE path/{id}` for one row. Written once for every framework: a
/// server routes those five to ``answer(_:)`` and sends what it returns (or the ``TodoServerError`` it throws).
public struct RESTWrites<Store: TodoStore, Input: RowInput>: Sendable {
    let store: Store
    /// The columns a `PATCH` or `DELETE` may filter on.
    let filters: Set<String>

    /// The writes of `Input`'s table in `store`, whose `PATCH` and `DELETE` may filter on `filters`.
    ///
    /// - Complexity: O(1).
    public init(store: Store, filters: Set<String>) {
        self.store = store
        self.filters = filters
    }

    /// What the body of a write holds: one row's fields or several.
    enum Body {
        case object([String: JSONValue])
        case array([[String: JSONValue]])
    }

    /// The answer to `request`, as PostgREST gives it.
    ///
    /// - Throws: ``TodoServerError``: the status and PostgREST's body for a refused write (`405` for a method
    ///   other than `POST`, `PATCH` and `DELETE`, or `POST` of one row).
    /// - Complexity: O(*b* + *r*) for a body of *b* bytes and *r* rows written, and the store's write.
    public func answer(_ request: RESTRequest) async throws -> RESTResponse {
        switch (request.method, request.id) {
        case (.post, nil): return try await insert(request)
        case (.patch, nil): return try await update(request)
        case (.delete, nil): return try await delete(request)
        case (.patch, let id?):
            let input = try input(try object(try await body(of: request)), requiringAll: false)
            guard let row = try await store.update(try byID(id), with: input).first else { throw notFound(id) }
            return response(try RowEncoder<Input.Row>().object(row), status: .ok)
        case (.delete, let id?):
            guard try await !store.delete(try byID(id)).isEmpty else { throw notFound(id) }
            return RESTResponse(status: .noContent)
        default:
            throw TodoServerError.status(.methodNotAllowed, "\(request.method) is not a write of \(Input.table)")
        }
    }

    /// `POST path`: one row, or several in one transaction.
    private func insert(_ request: RESTRequest) async throws -> RESTResponse {
        let query = try query(of: request)
        let body = try await body(of: request)
        let objects: [[String: JSONValue]]
        switch body {
        case .object(let object): objects = [object]
        case .array(let array):
            objects = array
            // PostgREST's rule for a batch without `columns=`: every row names the same columns.
            if query.columns == nil, let keys = array.first.map({ Set($0.keys) }),
                array.contains(where: { Set($0.keys) != keys })
            {
                throw TodoServerError.badRequest("All object keys must match")
            }
        }
        var inputs: [Input] = []
        for object in objects {
            var object = object
            if let columns = query.columns {
                try known(columns)
                object = Dictionary(uniqueKeysWithValues: columns.map { ($0, object[$0] ?? .null) })
            }
            inputs.append(try input(object, requiringAll: true))
        }
        let rows = try await store.insert(inputs)
        if case .array = body {
        } else if rows.count != 1 {
            throw TodoServerError.badRequest("not inserted")
        }
        return try answer(.insert(array: { if case .array = body { true } else { false } }()), rows, request, query)
    }

    /// `PATCH path?FILTERS`: the rows the filters select.
    private func update(_ request: RESTRequest) async throws -> RESTResponse {
        let query = try query(of: request)
        let selected = try liveQuery(query, statement: "UPDATE")
        let input = try input(try object(try await body(of: request)), requiringAll: false)
        return try answer(.update, try await store.update(selected, with: input), request, query)
    }

    /// `DELETE path?FILTERS`: the rows the filters select.
    private func delete(_ request: RESTRequest) async throws -> RESTResponse {
        let query = try query(of: request)
        let selected = try liveQuery(query, statement: "DELETE")
        return try answer(.delete, try await store.delete(selected), request, query)
    }

    // MARK: Reading the request

    /// The request's PostgREST parameters, checked against the table; its `Content-Profile` too.
    private func query(of request: RESTRequest) throws -> PostgRESTQuery {
        do throws(PostgRESTError) {
            try PostgRESTProfile.check(request.headers[HTTPField.Name("Content-Profile")!])
            let query = try PostgRESTQuery(
                parameters: PostgRESTQuery.parameters(fromQuery: request.query), table: Input.table)
            try query.validate(for: Input.Row.self)
            return query
        } catch {
            throw TodoServerError.postgREST(error)
        }
    }

    /// The rows a `PATCH` or `DELETE` selects: its filters, at least one.
    ///
    /// - Throws: `400 21000` without a filter, as PostgREST answers with pg-safeupdate.
    private func liveQuery(_ query: PostgRESTQuery, statement: String) throws -> LiveQuery<Input.Row> {
        let filters = query.queryParameters.filter { !["order", "limit", "offset", "since"].contains($0.0) }
        guard !filters.isEmpty else { throw TodoServerError.postgREST(.filterRequired(statement)) }
        do throws(LiveQueryError) {
            let rules = LiveQueryRules(filters: self.filters, orders: [])
            return try LiveQueryRequest<Input.Row>(parameters: filters, rules: rules).query
        } catch {
            throw TodoServerError.postgREST(
                .badParameter(error.description, details: "the parameter \(error.parameter)"))
        }
    }

    /// A row's fields: the body's keys must be the table's columns.
    private func input(_ object: [String: JSONValue], requiringAll: Bool) throws -> Input {
        try known(Array(object.keys))
        return try Input(RowFields(table: Input.table, values: object, requiringAll: requiringAll))
    }

    /// Refuses a column the table does not have, as PostgREST does (`PGRST204`).
    private func known(_ columns: [String]) throws {
        let table = Set(Input.columns)
        if let unknown = columns.sorted().first(where: { !table.contains($0) }) {
            throw TodoServerError.postgREST(.columnNotFound(unknown, of: Input.table))
        }
    }

    /// The body: JSON, at most ``TodoConfiguration/maximumBodySize``, an object or an array of objects.
    private func body(of request: RESTRequest) async throws -> Body {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            throw TodoServerError.status(.unsupportedMediaType, "a write wants Content-Type: application/json")
        }
        guard case .bytes(let data) = try await request.body(TodoConfiguration.maximumBodySize) else {
            throw TodoServerError.status(
                .contentTooLarge, "the body is over \(TodoConfiguration.maximumBodySize / 1_024) KiB")
        }
        switch try? JSONDecoder().decode(JSONValue.self, from: data) {
        case .object(let object):
            return .object(object)
        case .array(let values):
            let objects = values.compactMap { if case .object(let object) = $0 { object } else { nil } }
            guard objects.count == values.count else { throw TodoServerError.badRequest("All object keys must match") }
            return .array(objects)
        default:
            throw TodoServerError.badRequest("Empty or invalid json")
        }
    }

    /// The one object a `PATCH` sends.
    private func object(_ body: Body) throws -> [String: JSONValue] {
        guard case .object(let object) = body else {
            throw TodoServerError.badRequest("the body must be a JSON object")
        }
        return object
    }

    /// The rows whose id is the path's `id`.
    private func byID(_ text: String) throws -> LiveQuery<Input.Row> {
        // An id that is not a number names no row.
        guard let id = Int64(text) else { throw notFound(text) }
        return try LiveQuery(filters: [LiveQueryFilter(column: Input.Row.idColumn, condition: .equal(.integer(id)))])
    }

    private func notFound(_ id: String) -> TodoServerError {
        .notFound("no row \(id) in \(Input.table)")
    }

    // MARK: Answering

    /// PostgREST's answer to a write of `rows`.
    private func answer(
        _ write: PostgRESTAnswer.Write, _ rows: [Input.Row], _ request: RESTRequest, _ query: PostgRESTQuery
    ) throws -> RESTResponse {
        do {
            let answer = try PostgRESTAnswer.write(
                write, rows: rows, format: PostgRESTFormat(accept: request.headers[.accept]),
                preferences: PostgRESTPreferences(headers: request.headers[values: HTTPField.Name("Prefer")!]),
                encoder: RowEncoder<Input.Row>(select: query.select))
            var headers = HTTPFields()
            for (name, value) in answer.headers {
                if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
            }
            return RESTResponse(status: HTTPResponse.Status(code: answer.status), headers: headers, body: answer.body)
        } catch let error as PostgRESTError {
            throw TodoServerError.postgREST(error)
        }
    }

    private func response(_ json: Data, status: HTTPResponse.Status) -> RESTResponse {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return RESTResponse(status: status, headers: headers, body: json)
    }
}
