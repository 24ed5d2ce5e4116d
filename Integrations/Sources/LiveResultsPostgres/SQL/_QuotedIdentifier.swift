/// A PostgreSQL identifier (a table, column, schema, channel or function name), quoted for SQL.
///
/// Identifiers cannot be bound as parameters, so they are the only text this module writes into SQL:
/// always through this type, which wraps the name in double quotes and doubles the double quotes inside
/// it, so that capitals, spaces and quotes keep their meaning and nothing can end the identifier early.
struct _QuotedIdentifier: Sendable, Hashable, CustomStringConvertible {
    /// The name as PostgreSQL stores it.
    let name: String
    /// The name quoted for SQL: `"name"`, with `"` doubled.
    let sql: String

    /// The longest identifier PostgreSQL keeps (NAMEDATALEN - 1 bytes); it cuts longer ones silently.
    static let maximumLength = 63

    /// Quotes `name`, or throws ``PostgresLiveTableError/invalidIdentifier(_:reason:)`` for a name that
    /// PostgreSQL would not keep as written: empty, longer than 63 bytes, or with a NUL character.
    init(_ name: String) throws(PostgresLiveTableError) {
        guard !name.isEmpty else { throw .invalidIdentifier(name, reason: "it is empty") }
        guard name.utf8.count <= Self.maximumLength else {
            throw .invalidIdentifier(
                name, reason: "it is longer than \(Self.maximumLength) bytes, and PostgreSQL would shorten it")
        }
        guard !name.utf8.contains(0) else { throw .invalidIdentifier(name, reason: "it contains a NUL character") }
        self.name = name
        self.sql = "\"" + name.replacing("\"", with: "\"\"") + "\""
    }

    var description: String { sql }
}
