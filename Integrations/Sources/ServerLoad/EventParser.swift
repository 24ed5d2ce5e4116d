import NIOCore

/// Splits a Server-Sent Events body into the `data:` of each event, byte by byte.
struct EventParser {
    private var pending: [UInt8] = []
    private var scanned = 0

    mutating func feed(_ buffer: ByteBuffer) -> [[UInt8]] {
        pending.append(contentsOf: buffer.readableBytesView)
        var events: [[UInt8]] = []
        var start = 0
        var index = max(scanned, 1)
        while index < pending.count {
            if pending[index] == 10, pending[index - 1] == 10 {
                if let data = Self.data(pending[start..<index - 1]) { events.append(data) }
                start = index + 1
                index = start + 1
            } else {
                index += 1
            }
        }
        if start > 0 { pending.removeFirst(start) }
        scanned = max(pending.count, 1)
        return events
    }

    /// The `data:` lines of an event block, joined; `nil` for a block without data (a comment, `retry:`).
    private static func data(_ block: ArraySlice<UInt8>) -> [UInt8]? {
        var data: [UInt8]?
        for line in block.split(separator: 10, omittingEmptySubsequences: true) {
            if line.starts(with: Array("data: ".utf8)) {
                data = (data ?? []) + line.dropFirst(6)
            }
        }
        return data
    }
}
