import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import NIOConcurrencyHelpers
import NIOFoundationCompat

/// A request as the fixture server received it.
struct Received: Sendable {
    var method: String
    /// The path as sent (percent-encoded), without the query.
    var path: String
    /// The query as sent.
    var query: String?
    /// The headers, by lower-case name.
    var headers: [String: String]
    var body: Data

    /// The value of the header `name`, compared case-insensitively.
    func header(_ name: String) -> String? { headers[name.lowercased()] }
}

/// What the fixture server received, in order.
final class Recorder: Sendable {
    private let requests = NIOLockedValueBox<[Received]>([])

    func record(_ request: Received) { requests.withLockedValue { $0.append(request) } }
    var all: [Received] { requests.withLockedValue { $0 } }
    func count(path: String) -> Int { all.count { $0.path == path } }
    var last: Received? { all.last }
}

/// A canned answer.
struct CannedAnswer: Sendable {
    var status: HTTPResponse.Status = .ok
    var contentType: String? = "application/json"
    var headers: [(HTTPField.Name, String)] = []
    var body: String = ""
}

/// A small server with canned answers for the encoding and decoding tests.
enum Fixture {
    /// The canned answers of `GET /canned/{name}`.
    static let canned: [String: CannedAnswer] = [
        "json": CannedAnswer(
            headers: [
                (HTTPField.Name("authorization")!, "Bearer Token"), (HTTPField.Name("LENGTH")!, "123"),
                (HTTPField.Name("X-CUSTOM-HEADER")!, "second"),
            ],
            body: #"{"id": 1, "title": "Milk"}"#),
        "xml": CannedAnswer(
            contentType: "application/xml", body: "<note><id>1</id><title>Milk &amp; bread</title></note>"),
        "form": CannedAnswer(
            contentType: "application/x-www-form-urlencoded", body: "id=1&title=Milk+%26+bread&tags=a&tags=b"),
        "plain": CannedAnswer(contentType: "text/plain; charset=utf-8", body: "hello, world"),
        "not-found": CannedAnswer(status: .notFound, body: #"{"error": "no to-do 7"}"#),
        "server-error": CannedAnswer(status: .internalServerError, contentType: "text/plain", body: "boom"),
        "truncated": CannedAnswer(body: #"{"id": 1, "ti"#),
        "empty": CannedAnswer(body: ""),
        "html": CannedAnswer(contentType: "text/html", body: "<html><body>maintenance</body></html>"),
        "wrong-type": CannedAnswer(body: #"{"id": "one", "title": "Milk"}"#),
        "redirect": CannedAnswer(status: .found, contentType: nil, headers: [(.location, "/canned/json")]),
    ]

    /// The items of the paged routes: ids 1…`itemCount`.
    static let itemCount = 25

    /// The fixture's router: canned answers, an echo, a slow route, paged routes and event streams.
    ///
    /// `GET /events/{name}` answers its first request with `streams[name]` as an event stream, and every
    /// later one with an empty stream.
    static func router(_ recorder: Recorder, streams: [String: String] = [:]) -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(RecordingMiddleware(recorder: recorder))
        router.get("canned/:name") { _, context in
            guard let canned = canned[context.parameters.get("name") ?? ""] else { return Response(status: .notFound) }
            var headers = HTTPFields()
            if let contentType = canned.contentType { headers[.contentType] = contentType }
            for (name, value) in canned.headers { headers.append(HTTPField(name: name, value: value)) }
            return Response(
                status: canned.status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: canned.body))
            )
        }
        // The head and half a body at once, the rest 3 seconds later. Real time, here and in `trickle` and `slow`:
        // the clients' timeouts (1 s) are tested against a server that is slower than them.
        router.get("stalled") { _, _ in
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            return Response(
                status: .ok, headers: headers,
                body: ResponseBody { writer in
                    try await writer.write(ByteBuffer(string: #"{"id": 1, "#))
                    try await Task.sleep(for: .seconds(3))
                    try await writer.write(ByteBuffer(string: #""title": "late"}"#))
                    try await writer.finish(nil)
                })
        }
        // A byte every 0.2 seconds, for 5 seconds: an answer that keeps arriving, too slowly.
        router.get("trickle") { _, _ in
            Response(
                status: .ok,
                body: ResponseBody { writer in
                    for _ in 0..<25 {
                        try await writer.write(ByteBuffer(string: " "))
                        try await Task.sleep(for: .milliseconds(200))
                    }
                    try await writer.finish(nil)
                })
        }
        // 2 MiB of spaces.
        router.get("large") { _, _ in
            Response(
                status: .ok, body: ResponseBody(byteBuffer: ByteBuffer(repeating: UInt8(ascii: " "), count: 2 << 20)))
        }
        // The answer 3 seconds late.
        router.get("slow") { _, _ in
            try await Task.sleep(for: .seconds(3))
            return json(#"{"id": 1, "title": "late"}"#)
        }
        // Numbered (?page=&size=), offset (?offset=&limit=) and keyed (?after=&limit=) pages of items.
        router.get("items") { request, _ in
            let query = request.uri.queryParameters
            let limit = Int(query.get("limit") ?? query.get("size") ?? "10") ?? 10
            let start: Int
            if let page = query.get("page").flatMap(Int.init) {
                start = (page - 1) * limit
            } else if let after = query.get("after").flatMap(Int.init) {
                start = after
            } else {
                start = Int(query.get("offset") ?? "0") ?? 0
            }
            let ids = Array(stride(from: start + 1, through: min(itemCount, start + limit), by: 1))
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            if let last = ids.last, last < itemCount {
                headers[HTTPField.Name("Link")!] = "</items?after=\(last)&limit=\(limit)>; rel=\"next\""
                headers[HTTPField.Name("X-Next-Cursor")!] = "\(last)"
            }
            let items = ids.map { #"{"id": \#($0), "title": "item \#($0)"}"# }.joined(separator: ",")
            return Response(
                status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: "[\(items)]")))
        }
        for method in [HTTPRequest.Method.get, .post, .put, .patch, .delete] {
            router.on("echo/**", method: method) { _, _ in Response(status: .noContent) }
        }
        router.get("events/:name") { request, context in
            let name = context.parameters.get("name") ?? ""
            let first = recorder.count(path: request.uri.path) == 1
            var headers = HTTPFields()
            headers[.contentType] = "text/event-stream"
            let text = first ? streams[name] ?? "" : ""
            return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
        }
        return router
    }

    static func json(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(string: text)))
    }
}

/// Records every request before it is answered.
struct RecordingMiddleware<Context: RequestContext>: RouterMiddleware {
    let recorder: Recorder

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var request = request
        let body = try await request.collectBody(upTo: 1 << 20)
        var headers: [String: String] = [:]
        for field in request.headers { headers[field.name.canonicalName.lowercased()] = field.value }
        let target = request.head.path ?? ""
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        recorder.record(
            Received(
                method: request.method.rawValue, path: String(parts[0]),
                query: parts.count > 1 ? String(parts[1]) : nil,
                headers: headers, body: Data(buffer: body)))
        return try await next(request, context)
    }
}
