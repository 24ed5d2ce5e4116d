import AsyncHTTPClient
import Foundation
import LiveResultsTestSupport
import NIOCore
import NIOFoundationCompat
import NIOHTTP1
import TodoServer

/// Plain requests to a running server.
enum HTTP {
    struct Reply: Sendable {
        var status: Int
        var headers: HTTPHeaders
        var body: Data

        var text: String { String(decoding: body, as: UTF8.self) }

        /// The `message` of PostgREST's error body, `{"code","message","details","hint"}`.
        var error: String? { errorField("message") }

        /// The `code` of PostgREST's error body.
        var code: String? { errorField("code") }

        /// A string field of PostgREST's error body.
        func errorField(_ name: String) -> String? {
            (try? JSONSerialization.jsonObject(with: body) as? [String: Any])?[name] as? String
        }

        /// A response header.
        func header(_ name: String) -> String? { headers.first(name: name) }

        func decode<Value: Decodable>(_ type: Value.Type) throws -> Value {
            try JSONDecoder().decode(type, from: body)
        }
    }

    static func send(
        _ method: HTTPMethod, _ url: String, body: Data? = nil, headers: [(String, String)] = [],
        timeout: Duration = .seconds(60)
    ) async throws -> Reply {
        var request = HTTPClientRequest(url: url)
        request.method = method
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            if !request.headers.contains(name: "Content-Type") {
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            request.body = .bytes(ByteBuffer(data: body))
        }
        let response = try await HTTPClient.shared.execute(
            request, timeout: .milliseconds(Int64(timeout / .milliseconds(1))))
        let bytes = try await response.body.collect(upTo: 64 << 20)
        return Reply(status: Int(response.status.code), headers: response.headers, body: Data(buffer: bytes))
    }

    static func send(
        _ method: HTTPMethod, _ url: String, json: String, timeout: Duration = .seconds(60)
    ) async throws -> Reply {
        try await send(method, url, body: Data(json.utf8), timeout: timeout)
    }

    /// Creates a to-do through the API.
    @discardableResult
    static func create(_ server: some TodoRequests, title: String, project: String, priority: Int) async throws -> Todo
    {
        let body = try JSONEncoder().encode(TodoFields(title: title, project: project, priority: priority))
        let reply = try await server.send(.POST, "/todos", body: body, headers: [])
        guard reply.status == 201 else { throw TestFailure("POST /todos: \(reply.status) \(reply.text)") }
        return try reply.decode(Todo.self)
    }

    private struct TodoFields: Encodable {
        var title: String
        var project: String
        var priority: Int
    }
}

/// The server example's routes as a test sends them requests: through a socket (`RunningServer`) or straight to the
/// router (`RoutedServer`).
protocol TodoRequests: Sendable {
    /// Sends `method` to `path` (with its query), with `body` (JSON unless `headers` name another Content-Type)
    /// and `headers`.
    func send(_ method: HTTPMethod, _ path: String, body: Data?, headers: [(String, String)]) async throws -> HTTP.Reply
}

extension TodoRequests {
    /// Sends `method` to `path` with `headers` and no body.
    func send(_ method: HTTPMethod, _ path: String, headers: [(String, String)] = []) async throws -> HTTP.Reply {
        try await send(method, path, body: nil, headers: headers)
    }

    /// Sends `method` to `path` with the JSON body `json`.
    func send(_ method: HTTPMethod, _ path: String, json: String) async throws -> HTTP.Reply {
        try await send(method, path, body: Data(json.utf8), headers: [])
    }
}
