import Foundation
import LiveResultsTestSupport
import NIOHTTP1
import Testing

/// `HEAD` of the server example's paths, as load balancers and orchestrators send it to `/health`: the same answer
/// from both executables, with no body, and that of `GET` for the page and `/health`.
@Suite("HEAD requests", .serialized, .timeLimit(.minutes(5)))
struct HeadRequestTests {
    /// The paths asked, and the status of their `HEAD`: the page, `/health` and the live queries (as PostgREST answers
    /// `HEAD`) as `GET`, the streams and a path without a route `404`.
    static let paths: [(path: String, status: Int)] = [
        ("/", 200), ("/health", 200), ("/todos", 200), ("/people?select=id,todos(id)", 200), ("/todos/events", 404),
        ("/todos/updates", 404),
        ("/people/events", 404), ("/no/such/route", 404),
    ]

    @Test("HEAD answers as GET without the body on /, /health and the live queries, else 404, alike on both")
    func sameOnBothServers() async throws {
        // What the framework adds to every answer, not the routes.
        let frameworks: Set<String> = ["date", "server", "connection"]
        var answers: [ServerExecutable: [String]] = [:]
        for executable in ServerExecutable.allCases {
            let server = try await ServerProcess(executable: executable)
            for (path, status) in Self.paths {
                let head = try await Self.head(path, port: server.port)
                #expect(head.status == status, "\(executable) HEAD \(path): \(head.status)")
                #expect(head.bodyless, "\(executable) HEAD \(path): a body before the next answer")
                if status == 200 {
                    let get = try await HTTP.send(.GET, server.base + path)
                    #expect(head.status == get.status, "\(executable) \(path)")
                    #expect(head.fields["content-type"] == get.header("Content-Type"), "\(executable) \(path)")
                    #expect(head.fields["content-length"] == "\(get.body.count)", "\(executable) \(path)")
                }
                let fields = head.fields.filter { !frameworks.contains($0.key) }.map { "\($0.key): \($0.value)" }
                answers[executable, default: []].append("HEAD \(path) \(head.status) \(fields.sorted())")
            }
            #expect(await server.terminate() == 0)
        }
        let hummingbird = answers[.hummingbird] ?? []
        let vapor = answers[.vapor] ?? []
        for (one, other) in zip(hummingbird, vapor) { #expect(one == other) }
        #expect(hummingbird.count == vapor.count)
    }

    /// What a `HEAD` got: its status and headers (names in lower case), and whether the next answer on the
    /// connection followed its head at once.
    struct HeadAnswer {
        var status: Int
        var fields: [String: String]
        var bodyless: Bool
    }

    /// Sends `HEAD path`, then `GET /health` on the same connection, and reads both answers: a body sent after the
    /// head of the first would come before the second.
    static func head(_ path: String, port: Int) async throws -> HeadAnswer {
        let socket = try RawSocket(port: port)
        try socket.send("HEAD \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        var bytes: [UInt8] = []
        // The first answer's head, then the second request, so that both are not read as one pipelined burst.
        let headRead = await eventually(timeout: .seconds(20)) {
            bytes += socket.readAvailable() ?? []
            return String(decoding: bytes, as: UTF8.self).contains("\r\n\r\n")
        }
        guard headRead else { throw TestFailure("HEAD \(path): no answer in 20 s: \(bytes)") }
        try socket.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        // `/health`'s body ends the second answer.
        let nextRead = await eventually(timeout: .seconds(20)) {
            bytes += socket.readAvailable() ?? []
            return String(decoding: bytes, as: UTF8.self).hasSuffix(#"{"status":"ok"}"#)
        }
        let text = String(decoding: bytes, as: UTF8.self)
        guard nextRead, let end = text.range(of: "\r\n\r\n") else {
            throw TestFailure("HEAD \(path), then GET /health: \(text)")
        }
        let lines = text[..<end.lowerBound].components(separatedBy: "\r\n")
        let status = lines.first.flatMap { $0.split(separator: " ").dropFirst().first }.flatMap { Int($0) } ?? 0
        var fields: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return HeadAnswer(
            status: status, fields: fields, bodyless: text[end.upperBound...].hasPrefix("HTTP/1.1 200"))
    }
}
