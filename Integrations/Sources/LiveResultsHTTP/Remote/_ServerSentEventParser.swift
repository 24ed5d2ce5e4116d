import Foundation

/// One Server-Sent Event: its `id:`, `event:` and `data:` lines.
struct _ServerSentEvent: Equatable {
    var id: String?
    var name: String?
    var data: String
}

/// Reads Server-Sent Events from a stream's chunks, as the HTML standard says: lines end with `\n`,
/// `\r\n` or `\r`; a blank line ends an event; `:` starts a comment (a heartbeat); several `data:` lines
/// join with `\n`.
struct _ServerSentEventParser {
    private var line: [UInt8] = []
    private var pendingCR = false
    private var event = _ServerSentEvent(data: "")
    private var hasData = false
    private var hasFields = false

    /// Whether an event or a line was cut: bytes are waiting for the end of their line, or fields for the
    /// blank line that ends their event.
    var isMidEvent: Bool { !line.isEmpty || hasFields }

    /// The events that `chunk` completes.
    ///
    /// - Complexity: O(*c*) for *c* bytes.
    mutating func feed(_ chunk: Data) -> [_ServerSentEvent] {
        var events: [_ServerSentEvent] = []
        for byte in chunk {
            if pendingCR {
                pendingCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"):
                endLine(into: &events)
            case UInt8(ascii: "\r"):
                pendingCR = true
                endLine(into: &events)
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine(into events: inout [_ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasData { events.append(event) }
            event = _ServerSentEvent(data: "")
            hasData = false
            hasFields = false
            return
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") { return }
        let field: Substring
        var value: Substring
        if let colon = text.firstIndex(of: ":") {
            field = text[..<colon]
            value = text[text.index(after: colon)...]
            if value.hasPrefix(" ") { value = value.dropFirst() }
        } else {
            field = text[...]
            value = ""
        }
        switch field {
        case "data":
            event.data += hasData ? "\n" + value : String(value)
            hasData = true
            hasFields = true
        case "id":
            event.id = String(value)
            hasFields = true
        case "event":
            event.name = String(value)
            hasFields = true
        default:
            break  // `retry:` and unknown fields
        }
    }
}
