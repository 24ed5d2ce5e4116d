import Foundation
import LiveResultsTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A TCP client on loopback that reads only when told to, with a small receive buffer: a client that
/// stops reading, as the kernel sees it.
final class RawSocket: Sendable {
    private let descriptor: Int32

    /// Connects to `port` on 127.0.0.1 with a receive buffer of `receiveBuffer` bytes.
    init(port: Int, receiveBuffer: Int32 = 4_096) throws {
        descriptor = try LoopbackSocket.connect(port: port) { descriptor in
            var size = receiveBuffer
            setsockopt(descriptor, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        guard Glibc.send(descriptor, bytes, bytes.count, Int32(MSG_NOSIGNAL)) == bytes.count else {
            throw TestFailure("send: \(errno)")
        }
    }

    /// Closes the client's side of the connection (`shutdown(SHUT_WR)`): the server reads its end.
    func closeWriting() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// What has arrived so far, without waiting; `nil` once the server closed the connection.
    func readAvailable() -> [UInt8]? {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &chunk, chunk.count, 0)
            if count > 0 {
                bytes += chunk[..<count]
            } else if count == 0 {
                return bytes.isEmpty ? nil : bytes
            } else {
                return bytes
            }
        }
    }

    /// Whether the server listening on `port` has read all that this client sent: the receive queue of its side
    /// of the connection, in Linux's `/proc/net/tcp`, is empty.
    func serverHasRead(port: Int) -> Bool {
        var address = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0, let table = Self.procNetTCP() else { return false }
        let clientPort = Int(UInt16(bigEndian: address.sin_port))
        func portIn(_ field: Substring) -> Int? { field.split(separator: ":").last.flatMap { Int($0, radix: 16) } }
        // sl, local_address, rem_address, st, tx_queue:rx_queue…, one connection a line, addresses in hex.
        for line in table.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: " ")
            guard fields.count > 4, portIn(fields[1]) == port, portIn(fields[2]) == clientPort else { continue }
            return fields[4].split(separator: ":").last.flatMap { Int($0, radix: 16) } == 0
        }
        return false
    }

    /// `/proc/net/tcp`, read to its end (Foundation reads only the first page of a file whose size is 0).
    private static func procNetTCP() -> String? {
        let file = open("/proc/net/tcp", O_RDONLY)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = read(file, &chunk, chunk.count)
            guard count > 0 else { break }
            bytes += chunk[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    deinit {
        close(descriptor)
    }
}

/// Takes an HTTP/1.1 response apart: its head, then its chunked body, as bytes arrive.
struct ChunkedResponse {
    private var buffer: [UInt8] = []
    private var headRead = false
    private(set) var head = ""

    /// Feeds bytes; returns the body bytes that became whole.
    mutating func feed(_ bytes: [UInt8]) -> [UInt8] {
        buffer += bytes
        var body: [UInt8] = []
        if !headRead {
            guard let end = find([13, 10, 13, 10], from: 0) else { return [] }
            head = String(decoding: buffer[..<end], as: UTF8.self)
            buffer.removeFirst(end + 4)
            headRead = true
        }
        while let lineEnd = find([13, 10], from: 0) {
            guard let size = Int(String(decoding: buffer[..<lineEnd], as: UTF8.self), radix: 16) else { break }
            guard buffer.count >= lineEnd + 2 + size + 2 else { break }
            body += buffer[(lineEnd + 2)..<(lineEnd + 2 + size)]
            buffer.removeFirst(lineEnd + 2 + size + 2)
        }
        return body
    }

    private func find(_ pattern: [UInt8], from start: Int) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in start...(buffer.count - pattern.count)
        where buffer[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}
