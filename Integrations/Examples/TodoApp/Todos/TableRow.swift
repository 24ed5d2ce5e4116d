import LiveResults

/// A row of one of the server's tables: its columns are its query columns and its JSON keys, its id an `Int64`
/// the table gives.
public protocol TableRow: QueryableEntity, Codable where ID == Int64 {
    /// The table's name.
    static var table: String { get }
}
