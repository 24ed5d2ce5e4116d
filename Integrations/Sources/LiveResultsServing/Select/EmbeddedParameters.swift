/// The query parameters addressed to an embedded resource, kept as written for the relations that read them:
/// `alias.order=name.desc`, `alias.limit=3`, `alias.offset=3`, `alias.column=eq.VALUE`.
public struct EmbeddedParameters: Hashable, Sendable {
    /// `alias.order`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var order: String?
    /// `alias.limit`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var limit: String?
    /// `alias.offset`'s value, or `nil`.
    ///
    /// - Complexity: O(1).
    public var offset: String?
    /// The filters on the resource's columns, in the URL's order: `(column, "eq.VALUE")`.
    ///
    /// - Complexity: O(1).
    public var filters: [EmbeddedFilter]

    /// Parameters with these values.
    ///
    /// - Complexity: O(1).
    public init(order: String? = nil, limit: String? = nil, offset: String? = nil, filters: [EmbeddedFilter] = []) {
        self.order = order
        self.limit = limit
        self.offset = offset
        self.filters = filters
    }

    /// Whether the request addressed nothing to the resource.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool { order == nil && limit == nil && offset == nil && filters.isEmpty }
}
