/// One Server-Sent Event: its `id:`, `event:` and `data:` lines (see ``ServerSentEventParser``).
public struct ServerSentEvent: Equatable, Sendable {
    /// Its `id:`, the last one given; `nil` without one.
    public var id: String?
    /// Its `event:`, the type of event; `nil` without one (a `message`).
    public var name: String?
    /// Its `data:` lines, joined with `\n`.
    public var data: String

    /// An event with those fields.
    public init(id: String? = nil, name: String? = nil, data: String) {
        self.id = id
        self.name = name
        self.data = data
    }
}
