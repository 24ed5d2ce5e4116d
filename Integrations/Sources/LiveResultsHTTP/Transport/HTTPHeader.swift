/// One header line: a name and its value.
public struct HTTPHeader: Sendable, Hashable {
    /// The name, as sent or received (compare names case-insensitively).
    public var name: String
    /// The value.
    public var value: String

    /// Creates a header line.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

extension [HTTPHeader] {
    /// The value of the first header named `name`, compared case-insensitively; `nil` when absent.
    ///
    /// - Complexity: O(*h*) for *h* headers.
    public func value(named name: String) -> String? {
        let wanted = name.lowercased()
        return first { $0.name.lowercased() == wanted }?.value
    }
}
