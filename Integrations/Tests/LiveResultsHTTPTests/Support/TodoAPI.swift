import Foundation
import LiveResults
import LiveResultsHTTP
import TodoServer

/// The server example's REST API as typed requests (the article *HTTP requests* shows the same).
extension Todo: JSONDecodable {}

/// `{"error": "…"}`, an error body of the canned responses.
struct APIError: JSONDecodable, Equatable {
    var error: String
}

/// The server's error body, PostgREST's: `{"code", "message", "details", "hint"}`.
struct ServerError: JSONDecodable, Equatable {
    var code: String
    var message: String
}

/// The answer of a write: the to-do, or the error.
struct TodoResponse: Decodable, Sendable {
    @ResponseStatusCode var status
    @ResponseBody<Todo> var todo
    @ResponseErrorBody<ServerError> var error
}

/// `GET /todos?sections=project`: the versioned whole results, sectioned by project.
struct ListTodos: APIRequest {
    struct Response: Decodable, Sendable {
        @ResponseBody<ResultsUpdate<Todo>> var results
    }
    @RequestPath var path = "/todos"
    @QueryItem(name: "sections") var sections = "project"
    @RequestHeader(name: "Accept") var accept = "application/vnd.liveresults+json"
}

/// The fields of a new to-do, or of a change.
struct TodoFields: Encodable, Sendable {
    var title: String?
    var project: String?
    var priority: Int?
}

/// `POST /todos`.
struct CreateTodo: JSONRequest {
    typealias Response = TodoResponse
    @RequestHTTPMethod var method = .post
    @RequestPath var path = "/todos"
    var body: TodoFields

    init(title: String, project: String, priority: Int) {
        body = TodoFields(title: title, project: project, priority: priority)
    }
}

/// `PATCH /todos/{id}`.
struct UpdateTodo: JSONRequest {
    typealias Response = TodoResponse
    @RequestHTTPMethod var method = .patch
    @RequestPath var path = "/todos/{id}"
    @RequestPathParameter var id: Int64
    var body: TodoFields

    init(id: Int64, _ body: TodoFields) {
        self.id = id
        self.body = body
    }
}

/// `DELETE /todos/{id}`.
struct DeleteTodo: APIRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .delete
    @RequestPath var path = "/todos/{id}"
    @RequestPathParameter var id: Int64

    init(id: Int64) {
        self.id = id
    }
}

/// The fixture's item, in JSON.
struct Item: FetchableEntity, Codable, Hashable, JSONDecodable {
    var id: Int
    var title: String
}

/// The fixture's item, in XML.
struct Note: XMLDecodable, Equatable {
    var id: Int
    var title: String
}

/// The fixture's item, as a form.
struct FormItem: FormURLEncodedDecodable, Equatable {
    var id: Int
    var title: String
    var tags: [String]
}

/// The transports under test.
enum TransportKind: String, CaseIterable, Sendable {
    case urlSession, asyncHTTPClient

    var transport: any HTTPTransport {
        switch self {
        case .urlSession: URLSessionTransport()
        case .asyncHTTPClient: AsyncHTTPClientTransport()
        }
    }

    func client(_ base: String, timeout: Duration = .seconds(30)) -> HTTPAPIClient {
        HTTPAPIClient(baseURL: URL(string: base)!, transport: transport, timeout: timeout)
    }
}
