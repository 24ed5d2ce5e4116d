import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import TodoServer

/// Sends write `sequence` through the REST API.
func write(_ sequence: Int, log: WriteLog, http: HTTPClient, base: String) async {
    let kind = WriteKind.random()
    let id = log.send(sequence, kind)
    var request: HTTPClientRequest
    var body: [String: any Sendable] = ["title": title(sequence)]
    switch kind {
    case .priority: body["priority"] = Int.random(in: 0..<5)
    case .project: body["project"] = "project \(Int.random(in: 0..<10))"
    case .create:
        body["priority"] = Int.random(in: 0..<5)
        body["project"] = "project \(Int.random(in: 0..<10))"
    case .title, .delete: break
    }
    switch kind {
    case .create:
        request = HTTPClientRequest(url: "\(base)/todos")
        request.method = .POST
    case .delete:
        request = HTTPClientRequest(url: "\(base)/todos/\(id ?? 0)")
        request.method = .DELETE
    default:
        request = HTTPClientRequest(url: "\(base)/todos/\(id ?? 0)")
        request.method = .PATCH
    }
    if kind != .delete {
        let data = (try? JSONSerialization.data(withJSONObject: body)) ?? Data()
        request.headers.add(name: "Content-Type", value: "application/json")
        request.body = .bytes(ByteBuffer(bytes: data))
    }
    do {
        let response = try await http.execute(request, timeout: .seconds(60))
        let bytes = try await response.body.collect(upTo: 1 << 20)
        var created: Int64?
        if kind == .create, response.status == .created {
            created = try JSONDecoder().decode(Todo.self, from: Data(bytes.readableBytesView)).id
        }
        log.answer(sequence, status: Int(response.status.code), created: created)
    } catch {
        log.answer(sequence, status: -1, created: nil)
    }
}

/// `log.count` writes at `rate` per second from `writers` tasks: write k is sent at `start + k / rate`, or as
/// soon as a writer is free after that.
func drive(log: WriteLog, rate: Int, writers: Int, start: UInt64, http: HTTPClient, base: String) async {
    let next = Counter()
    await withTaskGroup(of: Void.self) { group in
        for _ in 0..<writers {
            group.addTask {
                while true {
                    let sequence = next.next()
                    guard sequence < log.count else { return }
                    let due = start + UInt64(sequence) * 1_000_000_000 / UInt64(rate)
                    let time = now()
                    if due > time { try? await Task.sleep(for: .nanoseconds(Int64(due - time))) }
                    await write(sequence, log: log, http: http, base: base)
                }
            }
        }
    }
}
