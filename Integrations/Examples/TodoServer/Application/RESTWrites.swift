import Foundation
import HTTPTypes
import Hummingbird
import LiveResults
import LiveResultsServing
import LiveResultsWireSupport
import NIOCore
import NIOFoundationCompat

/// The writes of a table in PostgREST's form: `POST path` (an object or an array), `PATCH path?FILTERS`,
/// `DELETE path?FILTERS`, and `PATCH`/`DELETE path/{id}` for one row.
struct RESTWrites<Store: TodoStore, Input: RowInput> {
    let store: Store
    /// The columns a `PATCH` or `DELETE` may filter on.
    let filters: Set<String>

    /// What the body of a write holds: one row's fields or several.
    enum Body {
        case object([String: JSONValue])
        case array([[String: JSONValue]])
    }

    func add(to router: Router<some RequestContext>, at path: String) {
        router.post(RouterPath(path)) { request, _ in try await insert(request) }
        router.patch(RouterPath(path)) { request, _ in try await update(request) }
        router.delete(RouterPath(path)) { request, _ in try await delete(request) }
        router.patch(RouterPath("\(path)/:id")) { request, context in
            let input = try input(try object(try await body(of: request)), requiringAll: false)
            guard let row = try await store.update(try byID(context), with: input).first else {
                throw notFound(context)
            }
            return try response(RowEncoder<Input.Row>().object(row), status: .ok)
        }
        router.delete(RouterPath("\(path)/:id")) { _, context in
            guard try await !store.delete(try byID(context)).isEmpty else { throw notFound(context) }
            return Response(status: .noContent)
        }
    }

    /// `POST path`: one row, or several in one transaction.
    private func insert(_ request: Request) async throws -> Response {
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
    private func update(_ request: Request) async throws -> Response {
        let query = try query(of: request)
        let selected = try liveQuery(query, statement: "UPDATE")
        let input = try input(try object(try await body(of: request)), requiringAll: false)
        return try answer(.update, try await store.update(selected, with: input), request, query)
    }

    /// `DELETE path?FILTERS`: the rows the filters select.
    private func delete(_ request: Request) async throws -> Response {
        let query = try query(of: request)
        let selected = try liveQuery(query, statement: "DELETE")
        return try answer(.delete, try await store.delete(selected), request, query)
    }

    // MARK: Reading the request

    /// The request's PostgREST parameters, checked against the table; its `Content-Profile` too.
    private func query(of request: Request) throws -> PostgRESTQuery {
        do throws(PostgRESTError) {
            try PostgRESTProfile.check(request.headers[HTTPField.Name("Content-Profile")!])
            let query = try PostgRESTQuery(
                parameters: PostgRESTQuery.parameters(fromQuery: request.uri.query), table: Input.table)
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

    /// The body: JSON, at most ``TodoRoutes/maximumBodySize``, an object or an array of objects.
    private func body(of request: Request) async throws -> Body {
        let mediaType = request.headers[.contentType]?.split(separator: ";").first
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        guard mediaType == "application/json" else {
            throw TodoServerError.status(.unsupportedMediaType, "a write wants Content-Type: application/json")
        }
        var request = request
        let data: Data
        do {
            data = Data(buffer: try await request.collectBody(upTo: TodoRoutes.maximumBodySize))
        } catch is NIOTooManyBytesError {
            throw TodoServerError.status(
                .contentTooLarge, "the body is over \(TodoRoutes.maximumBodySize / 1_024) KiB")
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
    private func byID(_ context: some RequestContext) throws -> LiveQuery<Input.Row> {
        // An id that is not a number names no row.
        guard let text = context.parameters.get("id"), let id = Int64(text) else { throw notFound(context) }
        return try LiveQuery(filters: [LiveQueryFilter(column: Input.Row.idColumn, condition: .equal(.integer(id)))])
    }

    private func notFound(_ context: some RequestContext) -> TodoServerError {
        .notFound("no row \(context.parameters.get("id") ?? "") in \(Input.table)")
    }

    // MARK: Answering

    /// PostgREST's answer to a write of `rows`.
    private func answer(
        _ write: PostgRESTAnswer.Write, _ rows: [Input.Row], _ request: Request, _ query: PostgRESTQuery
    ) throws -> Response {
        do {
            let answer = try PostgRESTAnswer.write(
                write, rows: rows, format: PostgRESTFormat(accept: request.headers[.accept]),
                preferences: PostgRESTPreferences(headers: request.headers[values: HTTPField.Name("Prefer")!]),
                encoder: RowEncoder<Input.Row>(select: query.select))
            var headers = HTTPFields()
            for (name, value) in answer.headers {
                if let name = HTTPField.Name(name) { headers.append(HTTPField(name: name, value: value)) }
            }
            let status = HTTPResponse.Status(code: answer.status)
            guard let body = answer.body else { return Response(status: status, headers: headers) }
            return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: body)))
        } catch let error as PostgRESTError {
            throw TodoServerError.postgREST(error)
        }
    }

    private func response(_ json: Data, status: HTTPResponse.Status) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(data: json)))
    }
}
