import Foundation

/// Reads Server-Sent Events from a stream's chunks, as the HTML standard says: lines end with `\n`,
/// `\r\n` or `\r`; a blank line ends an event; `:` starts a comment (a heartbeat); several `data:` lines
/// join with `\n`.
///
/// The one parser of the integrations: `LiveResultsHTTP`'s remote results and the tests' stream clients use it.
public struct ServerSentEventParser: Sendable {
    private var line: [UInt8] = []
    private var pendingCR = false
    private var event = ServerSentEvent(data: "")
    private var hasData = false
    private var hasFields = false

    /// A parser at the start of a stream.
    public init() {}

    /// Whether an event or a line was cut: bytes are waiting for the end of their line, or fields for the
    /// blank line that ends their event.
    public var isMidEvent: Bool { !line.isEmpty || hasFields }

    /// The events that `chunk` completes.
    ///
    /// - Complexity: O(*c*) for *c* bytes.
    public mutating func feed(_ chunk: Data) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
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

    private mutating func endLine(into events: inout [ServerSentEvent]) {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            if hasData { events.append(event) }
            event = ServerSentEvent(data: "")
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
