import Foundation

/// A table's or a column's name as SQL: double-quoted, a quote inside doubled. The names come from the server's
/// own types, never from a request; one that PostgreSQL would not keep as written is refused.
struct _QuotedName {
    let sql: String

    init(_ name: String) throws(TodoServerError) {
        guard !name.isEmpty, name.utf8.count <= 63, !name.contains("\0") else {
            throw .badRequest("no table or column \(name)")
        }
        sql = "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
