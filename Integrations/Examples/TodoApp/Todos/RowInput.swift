import LiveResults

/// The fields of a row that a write sets: all of them for an insert, any of them for an update.
public protocol RowInput: Sendable {
    /// The kind of row.
    associatedtype Row: TableRow

    /// The fields `fields` sets.
    ///
    /// - Throws: ``TodoServerError`` naming the column and what is wrong, as PostgreSQL does.
    init(_ fields: RowFields) throws(TodoServerError)

    /// A new row of these fields, with `id`.
    func row(id: Int64) -> Row

    /// `row` with the fields this input sets.
    func applied(to row: Row) -> Row

    /// The columns this input sets and their values, in the table's order.
    var assignments: [(column: String, value: QueryValue)] { get }
}

extension RowInput {
    /// The table's name.
    static var table: String { Row.table }

    /// The columns of the table: its row's query columns.
    static var columns: [String] { Row.queryColumns.map(\.name) }
}
