import Foundation
import LiveResultsHTTP
import LiveResultsTestSupport
import Testing

/// Postie's header test: case-insensitive, camel-cased names; required and optional.
private struct HeadersResponse: Decodable, Sendable {
    @ResponseStatusCode var status
    @ResponseHeader<DefaultHeaderStrategy> var authorization: String
    @ResponseHeader<DefaultHeaderStrategy> var length: String
    @ResponseHeader<DefaultHeaderStrategy> var contentType: String
    @ResponseHeader<DefaultHeaderStrategyOptional> var xCustomHeader: String?
    @ResponseHeader<DefaultHeaderStrategyOptional> var optionalValue: String?
    @ResponseBody<Item> var body
}

private struct RequiredHeader: Decodable, Sendable {
    @ResponseHeader<DefaultHeaderStrategy> var eTag: String
}

private struct ItemResponse: Decodable, Sendable {
    @ResponseStatusCode var status
    @ResponseBody<Item> var item
    @ResponseErrorBody<APIError> var error
}

private struct ItemOnly: Decodable, Sendable {
    @ResponseBody<Item> var item
}

private struct PlainErrorResponse: Decodable, Sendable {
    @ResponseBody<Item> var item
    @ResponseErrorBody<String> var error
}

private struct NoteResponse: Decodable, Sendable {
    @ResponseBody<Note> var note
}

private struct FormResponse: Decodable, Sendable {
    @ResponseBody<FormItem> var item
}

private struct PlainResponse: Decodable, Sendable {
    @ResponseBody<String> var text
    @ResponseHeader<DefaultHeaderStrategy> var contentType: String
}

/// A wrapper of paging details, read from the same answer.
private struct Meta: Decodable, Sendable {
    @ResponseStatusCode var status
    @ResponseHeader<DefaultHeaderStrategy> var contentType: String
}

private struct NestedItem: Decodable, Sendable {
    @ResponseBody<Item> var item
    @NestedResponse var meta: Meta
}

private struct Canned<Response: Decodable & Sendable>: APIRequest {
    @RequestPath var path = "/canned/{name}"
    @RequestPathParameter var name: String

    init(_ name: String, as type: Response.Type) {
        self.name = name
    }
}

/// Each response wrapper and body kind, read from a real server's answers, through both transports.
@Suite("Response decoding", .timeLimit(.minutes(2)))
struct ResponseDecodingTests {
    @Test(
        "headers: case-insensitive, camel-cased, required or optional; status and body",
        arguments: TransportKind.allCases)
    func headers(transport: TransportKind) async throws {
        try await served(transport) { client in
            let response = try await client.send(Canned("json", as: HeadersResponse.self))
            #expect(response.status == 200)
            #expect(response.authorization == "Bearer Token")
            #expect(response.length == "123")
            #expect(response.contentType == "application/json")
            #expect(response.xCustomHeader == "second")
            #expect(response.optionalValue == nil)
            #expect(response.body == Item(id: 1, title: "Milk"))
        }
    }

    @Test("a required header that is missing throws missingHeader")
    func missingHeader() async throws {
        try await served(.asyncHTTPClient) { client in
            await #expect(throws: HTTPAPIError.missingHeader("eTag")) {
                try await client.send(Canned("json", as: RequiredHeader.self))
            }
        }
    }

    @Test("XML, form and plain bodies", arguments: TransportKind.allCases)
    func bodyKinds(transport: TransportKind) async throws {
        try await served(transport) { client in
            #expect(
                try await client.send(Canned("xml", as: NoteResponse.self)).note == Note(id: 1, title: "Milk & bread"))
            #expect(
                try await client.send(Canned("form", as: FormResponse.self)).item
                    == FormItem(id: 1, title: "Milk & bread", tags: ["a", "b"]))
            let plain = try await client.send(Canned("plain", as: PlainResponse.self))
            #expect(plain.text == "hello, world")
            #expect(plain.contentType == "text/plain; charset=utf-8")
        }
    }

    @Test("a nested response reads the same answer")
    func nested() async throws {
        try await served(.asyncHTTPClient) { client in
            let response = try await client.send(Canned("json", as: NestedItem.self))
            #expect(response.item == Item(id: 1, title: "Milk"))
            #expect(response.meta.status == 200)
            #expect(response.meta.contentType == "application/json")
        }
    }

    @Test(
        "a non-2xx status with an error body: the error body is set instead of the body",
        arguments: TransportKind.allCases)
    func errorBody(transport: TransportKind) async throws {
        try await served(transport) { client in
            let response = try await client.send(Canned("not-found", as: ItemResponse.self))
            #expect(response.status == 404)
            #expect(response.item == nil)
            #expect(response.error == APIError(error: "no to-do 7"))
            let success = try await client.send(Canned("json", as: ItemResponse.self))
            #expect(success.item == Item(id: 1, title: "Milk"))
            #expect(success.error == nil)
            let plain = try await client.send(Canned("server-error", as: PlainErrorResponse.self))
            #expect(plain.error == "boom")
            await #expect(throws: HTTPAPIError.unacceptableStatus(404, body: #"{"error": "no to-do 7"}"#)) {
                try await client.send(Canned("not-found", as: ItemResponse.self), requiringSuccess: true)
            }
        }
    }

    @Test("a non-2xx status without an error body throws with the status and the body")
    func statusWithoutErrorBody() async throws {
        try await served(.urlSession) { client in
            await #expect(throws: HTTPAPIError.unacceptableStatus(500, body: "boom")) {
                try await client.send(Canned("server-error", as: ItemOnly.self))
            }
            await #expect(throws: HTTPAPIError.unacceptableStatus(404, body: #"{"error": "no to-do 7"}"#)) {
                try await client.send(Canned("not-found", as: EmptyResponse.self))
            }
        }
    }

    @Test(
        "a body truncated, empty, of another content type or of the wrong shape says what failed",
        arguments: [
            ("truncated", "", "corrupted data"), ("empty", "", "the body is empty"),
            ("wrong-type", "id", "expected Int"),
        ])
    func undecodable(name: String, path: String, reason: String) async throws {
        try await served(.asyncHTTPClient) { client in
            do {
                _ = try await client.send(Canned(name, as: ItemOnly.self))
                Issue.record("\(name) decoded")
            } catch let HTTPAPIError.undecodableBody(type, codingPath, why, _) {
                #expect(type == "Item")
                #expect(codingPath == path)
                #expect(why.hasPrefix(reason), "\(why)")
            }
        }
    }

    @Test("a body of another content type throws unexpectedContentType")
    func otherContentType() async throws {
        try await served(.asyncHTTPClient) { client in
            await #expect(
                throws: HTTPAPIError.unexpectedContentType(expected: "application/json", received: "text/html")
            ) {
                try await client.send(Canned("html", as: ItemOnly.self))
            }
        }
    }

    @Test("a redirect is followed", arguments: TransportKind.allCases)
    func redirect(transport: TransportKind) async throws {
        let recorder = Recorder()
        try await HTTPTestServer.serving(Fixture.router(recorder)) { port in
            let response = try await transport.client("http://127.0.0.1:\(port)").send(
                Canned("redirect", as: ItemOnly.self))
            #expect(response.item == Item(id: 1, title: "Milk"))
            #expect(recorder.all.map(\.path) == ["/canned/redirect", "/canned/json"])
        }
    }

    private func served(
        _ transport: TransportKind, _ body: @Sendable (HTTPAPIClient) async throws -> Void
    ) async throws {
        try await HTTPTestServer.serving(Fixture.router(Recorder())) { port in
            try await body(transport.client("http://127.0.0.1:\(port)"))
        }
    }
}
