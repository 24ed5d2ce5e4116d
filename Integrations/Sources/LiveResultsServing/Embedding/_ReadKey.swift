import LiveResults

/// What an embedding read, so that a change to it finds the parents whose embedded rows it can change: a row
/// it embedded (by its table and id), or a lookup of a table's rows by one column's value (which finds the
/// row that a change gives that value, a child inserted under a parent for instance).
enum _ReadKey: Hashable, Sendable {
    /// The row of `table` whose id is `id`.
    case row(table: String, id: QueryValue)
    /// The rows of `table` whose `column` is `value`.
    case lookup(table: String, column: String, value: QueryValue)
}
