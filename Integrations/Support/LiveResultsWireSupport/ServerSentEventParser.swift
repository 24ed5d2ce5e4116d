import Foundation

/// Reads Server-Sent Events from a stream's chunks, as the HTML standard says: lines end with `\n`,
/// `\r\n` or `\r`; a blank line ends an event; `:` starts a comment (a heartbeat); several `data:` lines
/// join with `\n`.
///
/// The one parser of the integrations: `LiveResultsHTTP`'s remote results and the tests' stream clients use it.
public struct ServerSentEventParser: Sendable {
    /// An event, or a line, larger than ``maximumEventSize``: a stream that sends one is dropped rather than
    /// let fill the memory.
    public struct EventTooLarge: Error, Sendable, Equatable, CustomStringConvertible {
        /// The size that was exceeded, in bytes.
        public let maximumEventSize: Int

        /// The error for events over `maximumEventSize` bytes.
        public init(maximumEventSize: Int) {
            self.maximumEventSize = maximumEventSize
        }

        public var description: String { "an event of the stream is larger than \(maximumEventSize) bytes" }
    }

    /// The most bytes of one event (its lines together, comments aside), and of any one line.
    public let maximumEventSize: Int
    private var line: [UInt8] = []
    private var pendingCR = false
    private var event = ServerSentEvent(data: "")
    /// The bytes of the fields of ``event`` read so far.
    private var eventSize = 0
    private var hasData = false
    private var hasFields = false

    /// A parser at the start of a stream.
    ///
    /// - Parameter maximumEventSize: The most bytes of one event; 64 MiB by default.
    public init(maximumEventSize: Int = 64 * 1_024 * 1_024) {
        self.maximumEventSize = maximumEventSize
    }

    /// Whether an event or a line was cut: bytes are waiting for the end of their line, or fields for the
    /// blank line that ends their event.
    public var isMidEvent: Bool { !line.isEmpty || hasFields }

    /// The events that `chunk` completes.
    ///
    /// - Throws: ``EventTooLarge`` once the event being read, or one line, passes ``maximumEventSize``; the
    ///   parser is then of no further use.
    /// - Complexity: O(*c*) for *c* bytes.
    public mutating func feed(_ chunk: Data) throws(EventTooLarge) -> [ServerSentEvent] {
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
                guard eventSize + line.count < maximumEventSize else {
                    throw EventTooLarge(maximumEventSize: maximumEventSize)
                }
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
            eventSize = 0
            hasData = false
            hasFields = false
            return
        }
        let text = String(decoding: line, as: UTF8.self)
        if text.hasPrefix(":") { return }
        eventSize += line.count
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
