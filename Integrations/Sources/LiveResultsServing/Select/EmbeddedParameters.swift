/// The query parameters addressed to an embedded resource, kept as written for the relations that read them:
/// `alias.order=name.desc`, `alias.limit=3`, `alias.offset=3`, `alias.column=eq.VALUE`, and `alias=not.is.null`
/// or `alias=is.null` addressed to the resource itself.
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
    /// What `alias=…` asks of the parent rows: `true` for `not.is.null` (only those with a related row after the
    /// resource's filters, as `!inner` keeps), `false` for `is.null` (only those without one), `nil` for
    /// neither.
    ///
    /// - Complexity: O(1).
    public var requiresRelatedRow: Bool?

    /// Parameters with these values.
    ///
    /// - Complexity: O(1).
    public init(
        order: String? = nil, limit: String? = nil, offset: String? = nil, filters: [EmbeddedFilter] = [],
        requiresRelatedRow: Bool? = nil
    ) {
        self.order = order
        self.limit = limit
        self.offset = offset
        self.filters = filters
        self.requiresRelatedRow = requiresRelatedRow
    }

    /// Whether the request addressed nothing to the resource.
    ///
    /// - Complexity: O(1).
    public var isEmpty: Bool {
        order == nil && limit == nil && offset == nil && filters.isEmpty && requiresRelatedRow == nil
    }
}
