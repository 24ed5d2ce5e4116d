import Foundation
import LiveResultsHTTP
import LiveResultsTestSupport
import Testing

/// Postie's documented request: a path with two parameters, repeated query items, optional ones left out.
private struct ContactRequest: APIRequest {
    typealias Response = EmptyResponse
    @RequestPath var path = "/app/{id}/contacts/{cid}"
    @RequestPathParameter(name: "id") var id = 123
    @RequestPathParameter(name: "cid") var contactID = "ABC456"
    @QueryItem var values = [1, 2, 3]
    @QueryItem(name: "custom_name") var optional: String? = nil
    @QueryItem var flag = true
    @RequestHeader(name: "Authorization") var authorization: String? = "Bearer abc"
    @RequestHeader(name: "X-Absent") var absent: String? = nil
}

/// A path parameter of any text.
private struct ItemRequest: APIRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .delete
    @RequestPath var path = "/items/{name}"
    @RequestPathParameter var name: String
}

/// A placeholder without its parameter.
private struct Unfilled: APIRequest {
    typealias Response = EmptyResponse
    @RequestPath var path = "/app/{id}/contacts/{cid}"
    @RequestPathParameter(name: "id") var id = 1
}

/// A parameter whose value may be absent: `nil` leaves the placeholder unfilled.
private struct OptionalParameter: APIRequest {
    typealias Response = EmptyResponse
    @RequestPath var path = "/items/{id}"
    @RequestPathParameter var id: Int?
}

/// A path that carries its own query, with query items after it.
private struct QueriedPath: APIRequest {
    typealias Response = EmptyResponse
    @RequestPath var path = "/todos/events?sections=project&title=eq.a%20b"
    @QueryItem var limit = 20
}

private struct Fields: Encodable, Sendable {
    var title: String
    var priority: Int
    var tags: [String]
    var note: String?
}

private struct SendJSON: JSONRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .post
    @RequestPath var path = "/form"
    var body = Fields(title: "Milk & bread", priority: 2, tags: ["a", "b c"], note: nil)
}

private struct SendForm: FormURLEncodedRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .post
    @RequestPath var path = "/form"
    var body = Fields(title: "Milk & bread=1+1", priority: 2, tags: ["a", "b c"], note: nil)
}

private struct SendXML: XMLRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .put
    @RequestPath var path = "/form"
    var body = Fields(title: "Milk & bread", priority: 2, tags: ["a"], note: "n")
}

private struct SendPlain: PlainRequest {
    typealias Response = EmptyResponse
    @RequestHTTPMethod var method = .patch
    @RequestPath var path = "form"
    var body = "héllo\nworld"
}

/// What the requests' wrappers and bodies send, as a real server receives it, through both transports.
@Suite("Request encoding", .timeLimit(.minutes(2)))
struct RequestEncodingTests {
    @Test(
        "Postie's example: path parameters, repeated and omitted query items, headers",
        arguments: TransportKind.allCases)
    func postieExample(transport: TransportKind) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            try await transport.client("http://127.0.0.1:\(port)/echo").send(ContactRequest())
            let received = try #require(recorder.last)
            #expect(received.method == "GET")
            #expect(received.path == "/echo/app/123/contacts/ABC456")
            #expect(received.query == "values=1&values=2&values=3&flag=true")
            #expect(received.header("Authorization") == "Bearer abc")
            #expect(received.header("X-Absent") == nil)
        }
    }

    @Test(
        "a path parameter is one percent-encoded segment, never a traversal",
        arguments: [
            ("a/b", "/echo/items/a%2Fb"), ("../../admin", "/echo/items/%2E%2E%2F%2E%2E%2Fadmin"),
            ("..", "/echo/items/%2E%2E"), ("two words", "/echo/items/two%20words"),
            ("café ☕", "/echo/items/caf%C3%A9%20%E2%98%95"), ("a?b#c", "/echo/items/a%3Fb%23c"),
        ])
    func pathParameterEncoding(value: String, path: String) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let client = TransportKind.asyncHTTPClient.client("http://127.0.0.1:\(port)/echo")
            try await client.send(ItemRequest(name: value))
            #expect(recorder.last?.path == path)
            #expect(recorder.last?.method == "DELETE")
            #expect(try client.transportRequest(for: ItemRequest(name: value)).url.path.hasPrefix("/echo/items/"))
        }
    }

    @Test("a path may carry a query, written percent-encoded; query items follow it")
    func pathWithQuery() throws {
        let client = HTTPAPIClient(baseURL: URL(string: "http://127.0.0.1:9/api/")!)
        let url = try client.transportRequest(for: QueriedPath()).url
        #expect(url.path == "/api/todos/events")
        #expect(url.query == "sections=project&title=eq.a%20b&limit=20")
    }

    @Test("a placeholder without a parameter throws before anything is sent")
    func unfilledPathParameter() throws {
        let client = HTTPAPIClient(baseURL: URL(string: "http://127.0.0.1:9")!)
        #expect(throws: HTTPAPIError.unfilledPathParameter(name: "cid", path: "/app/{id}/contacts/{cid}")) {
            try client.transportRequest(for: Unfilled())
        }
        #expect(throws: HTTPAPIError.unfilledPathParameter(name: "id", path: "/items/{id}")) {
            try client.transportRequest(for: OptionalParameter(id: nil))
        }
        #expect(try client.transportRequest(for: OptionalParameter(id: 7)).url.path == "/items/7")
    }

    @Test(
        "a base URL with or without a trailing slash and a path, and a path with or without a leading slash",
        arguments: [
            ("http://h:1", "/app/123/contacts/ABC456"), ("http://h:1/", "/app/123/contacts/ABC456"),
            ("http://h:1/api", "/api/app/123/contacts/ABC456"), ("http://h:1/api/", "/api/app/123/contacts/ABC456"),
            ("http://h:1/api/v2/", "/api/v2/app/123/contacts/ABC456"),
        ])
    func baseURLs(base: String, path: String) throws {
        let client = HTTPAPIClient(baseURL: URL(string: base)!)
        let url = try client.transportRequest(for: ContactRequest()).url
        #expect(url.absoluteString == "http://h:1\(path)?values=1&values=2&values=3&flag=true")
        var relative = ContactRequest()
        relative.path = "app/{id}/contacts/{cid}"
        #expect(try client.transportRequest(for: relative).url == url)
    }

    @Test("a base URL that is not an HTTP URL throws invalidURL", arguments: ["mailto:someone", "/just/a/path"])
    func invalidBaseURL(base: String) throws {
        let client = HTTPAPIClient(baseURL: URL(string: base)!)
        #expect(throws: HTTPAPIError.invalidURL(base)) { try client.transportRequest(for: ContactRequest()) }
    }

    @Test("JSON, form, XML and plain bodies arrive with their content type", arguments: TransportKind.allCases)
    func bodies(transport: TransportKind) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let client = transport.client("http://127.0.0.1:\(port)/echo/")

            try await client.send(SendJSON())
            let json = try #require(recorder.last)
            #expect(json.header("Content-Type") == "application/json")
            let decoded = try JSONDecoder().decode([String: JSONField].self, from: json.body)
            #expect(decoded["title"] == .text("Milk & bread"))
            #expect(decoded["priority"] == .number(2))

            try await client.send(SendForm())
            let form = try #require(recorder.last)
            #expect(form.method == "POST")
            #expect(form.header("Content-Type") == "application/x-www-form-urlencoded")
            #expect(
                String(decoding: form.body, as: UTF8.self)
                    == "priority=2&tags=a&tags=b%20c&title=Milk%20%26%20bread%3D1%2B1")

            try await client.send(SendXML())
            let xml = try #require(recorder.last)
            #expect(xml.method == "PUT")
            #expect(xml.header("Content-Type") == "application/xml")
            let text = String(decoding: xml.body, as: UTF8.self)
            #expect(text.hasPrefix("<fields>"))
            #expect(text.contains("<title>Milk &amp; bread</title>"))
            #expect(text.contains("<priority>2</priority>"))

            try await client.send(SendPlain())
            let plain = try #require(recorder.last)
            #expect(plain.method == "PATCH")
            #expect(plain.path == "/echo/form")
            #expect(plain.header("Content-Type") == "text/plain; charset=utf-8")
            #expect(String(decoding: plain.body, as: UTF8.self) == "héllo\nworld")
        }
    }
}

/// A JSON field, for comparing what arrived.
private enum JSONField: Decodable, Equatable {
    case text(String), number(Double), other

    init(from decoder: any Decoder) throws {
        let value = try decoder.singleValueContainer()
        if let number = try? value.decode(Double.self) {
            self = .number(number)
        } else if let text = try? value.decode(String.self) {
            self = .text(text)
        } else {
            self = .other
        }
    }
}
