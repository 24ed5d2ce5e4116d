/// How many batch requests the ``TodoList/authors`` association made, and for how many author ids.
public struct AuthorRequestCount: Equatable, Sendable, CustomStringConvertible {
    /// The requests.
    public var requests = 0
    /// The author ids asked for, over every request.
    public var keys = 0

    /// Creates a count.
    public init(requests: Int = 0, keys: Int = 0) {
        self.requests = requests
        self.keys = keys
    }

    /// Counts one request for `ids`.
    mutating func count(_ ids: [String]) {
        requests += 1
        keys += ids.count
    }

    /// `2 requests for 3 keys`.
    public var description: String {
        "\(requests) request\(requests == 1 ? "" : "s") for \(keys) key\(keys == 1 ? "" : "s")"
    }
}
