/// An entity whose results a client can ask for by column: filtered, ordered and sectioned by the columns it
/// declares (see ``LiveQuery``).
///
/// ```swift
/// extension Todo: QueryableEntity {
///     static let queryColumns: [QueryColumn<Todo>] = [
///         QueryColumn("id", \.id), QueryColumn("title", \.title),
///         QueryColumn("project", \.project), QueryColumn("priority", \.priority),
///     ]
/// }
/// ```
public protocol QueryableEntity: FetchableEntity {
    /// The columns queries may name. One of them is ``idColumn``.
    static var queryColumns: [QueryColumn<Self>] { get }
    /// The column that holds each entity's id: it ends every query's order, so that the order is total and
    /// every process orders the same results alike. `"id"` by default.
    static var idColumn: String { get }
}

extension QueryableEntity {
    /// `"id"`.
    ///
    /// - Complexity: O(1).
    public static var idColumn: String { "id" }

    /// The column named `name`, if the entity declares it.
    ///
    /// - Complexity: O(*c*) for *c* columns.
    static func queryColumn(named name: String) -> QueryColumn<Self>? {
        queryColumns.first { $0.name == name }
    }
}
