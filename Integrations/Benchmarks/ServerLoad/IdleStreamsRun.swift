import AsyncHTTPClient
import Foundation
import LiveResultsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// What an idle Server-Sent Events stream costs the server: `--idle-streams N` opens N raw `GET /todos/events`
/// sockets on a server in memory and reads its resident memory before, with them open, and after they closed.
///
/// Three shapes, each on a new server: N streams of one live query and range (one window, shared), of N distinct
/// ranges of one query (`?offset=`: 32 shared windows, then one window per stream), and of the whole list (no
/// window: the controller's own stream). The difference between the first two is what a window of its own adds
/// to a stream. The client holds its sockets without reading after the first update, as idle browser tabs do.
func idleStreams(count: Int, options: Options, http: HTTPClient) async throws -> RunResult {
    var result = RunResult(name: "\(count) idle streams, in memory, \(options.rows) rows")
    let shapes: [(name: String, path: @Sendable (Int) -> String)] = [
        ("one query and range", { _ in "/todos/events?order=priority.desc&limit=20" }),
        ("distinct ranges", { "/todos/events?order=priority.desc&limit=20&offset=\($0)" }),
        ("the whole list", { _ in "/todos/events" }),
    ]
    for shape in shapes {
        let server = try await ServerProcess(
            ["--maximum-streams", "\(count + 16)"], executable: options.executable)
        do {
            try await seed(rows: options.rows, base: server.base, http: http)
            let measured = try await measureStreams(count: count, port: server.port, pid: server.pid, path: shape.path)
            result.note(
                "\(shape.name): RSS \(megabytes(measured.before)) → \(megabytes(measured.open)) with \(count) open "
                    + "(\(measured.descriptors) descriptors), \(megabytes(measured.closed)) after they closed; "
                    + String(
                        format: "%.1f KB per stream", Double(measured.open - measured.before) / Double(count) / 1_024)
                    + "; opened in " + String(format: "%.1f s", measured.seconds))
            if let status = await server.stop(), status != 0 {
                result.fail("the server exited with status \(status): \(server.printed.suffix(2_000))")
            }
        } catch {
            _ = await server.stop()
            throw error
        }
    }
    return result
}

/// The server's resident memory settled (three equal samples a second apart, at most ten).
private func settledRSS(pid: Int32) async throws -> Int {
    var samples: [Int] = []
    for _ in 0..<10 {
        samples.append(Usage(pid: pid)?.rss ?? 0)
        if samples.count >= 3, Set(samples.suffix(3)).count == 1 { break }
        try await Task.sleep(for: .seconds(1))
    }
    return samples.last ?? 0
}

/// Opens `count` streams at `path(index)` on 127.0.0.1:`port`, each read up to its first update, and measures.
private func measureStreams(
    count: Int, port: Int, pid: Int32, path: @Sendable (Int) -> String
) async throws -> (before: Int, open: Int, closed: Int, descriptors: Int, seconds: Double) {
    let before = try await settledRSS(pid: pid)
    let start = now()
    var sockets: [Int32] = []
    sockets.reserveCapacity(count)
    defer { for socket in sockets { close(socket) } }
    // A hundred at a time: requests sent, then their first updates read, so the server works on them together.
    for batch in stride(from: 0, to: count, by: 100) {
        let opened = try (batch..<min(count, batch + 100)).map { index in
            try openStream(port: port, path: path(index))
        }
        sockets += opened
        for socket in opened { try readFirstUpdate(socket) }
    }
    let seconds = seconds(from: start, to: now())
    let open = try await settledRSS(pid: pid)
    let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/fd").count) ?? 0
    for socket in sockets { close(socket) }
    sockets = []
    let closed = try await settledRSS(pid: pid)
    return (before, open, closed, descriptors, seconds)
}

/// A connected socket that has sent `GET path` for an event stream.
private func openStream(port: Int, path: String) throws -> Int32 {
    let socket = try LoopbackSocket.connect(port: port) { socket in
        // Reads give up after 60 s rather than hang on a server that never answers.
        var timeout = timeval(tv_sec: 60, tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    }
    let request = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n\r\n"
    let sent = request.utf8CString.withUnsafeBytes { send(socket, $0.baseAddress, $0.count - 1, 0) }
    guard sent == request.utf8.count else {
        close(socket)
        throw Failure("send(): errno \(errno)")
    }
    return socket
}

/// Reads from `socket` until its first event with data has ended (a `200` head, then `retry:`, then an update).
private func readFirstUpdate(_ socket: Int32) throws {
    var received: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
        let read = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        guard read > 0 else { throw Failure("a stream ended or timed out before its first update (errno \(errno))") }
        received += buffer[..<read]
        let text = String(decoding: received, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 200") else {
            if text.contains("\r\n\r\n") { throw Failure("a stream was refused: \(text.prefix(200))") }
            continue
        }
        if let data = text.range(of: "\ndata: "), text[data.upperBound...].contains("\n\n") { return }
    }
}
