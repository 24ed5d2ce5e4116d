/// What clients may ask of a live query: the columns they may filter and order by, the sections, the order
/// when they name none, and the largest window.
///
/// ```swift
/// let rules = LiveQueryRules(
///     filters: ["project", "priority", "title"], orders: ["priority", "title", "id"],
///     sectionedBy: "project", defaultOrder: [LiveQueryOrdering(column: "priority")], maximumLimit: 500)
/// let request = try LiveQueryRequest<Todo>(parameters: [("project", "eq.home"), ("limit", "50")], rules: rules)
/// ```
public struct LiveQueryRules: Sendable {
    /// The columns a client may filter on.
    ///
    /// - Complexity: O(1).
    public var filters: Set<String>
    /// The columns a client may order by.
    ///
    /// - Complexity: O(1).
    public var orders: Set<String>
    /// The text column that names every query's sections, or `nil` for one section.
    ///
    /// - Complexity: O(1).
    public var sectionedBy: String?
    /// The order of a query that names none (the id column ends it).
    ///
    /// - Complexity: O(1).
    public var defaultOrder: [LiveQueryOrdering]
    /// The largest window a client may ask for; also the window of a query that names no `limit`.
    ///
    /// - Complexity: O(1).
    public var maximumLimit: Int
    /// The most values an `in` list may hold: 1,000 by default.
    ///
    /// - Complexity: O(1).
    public var maximumListLength: Int

    /// Rules allowing `filters`, `orders` and windows up to `maximumLimit`.
    ///
    /// - Complexity: O(1).
    public init(
        filters: Set<String>, orders: Set<String>, sectionedBy: String? = nil, defaultOrder: [LiveQueryOrdering] = [],
        maximumLimit: Int = 500, maximumListLength: Int = 1_000
    ) {
        self.filters = filters
        self.orders = orders
        self.sectionedBy = sectionedBy
        self.defaultOrder = defaultOrder
        self.maximumLimit = max(0, maximumLimit)
        self.maximumListLength = max(0, maximumListLength)
    }
}
