/// The quoted names a ``PostgresLiveTable`` writes into SQL: its table, id column and channel, and the
/// trigger function, triggers and transaction settings derived from the table and the channel.
struct _TableNames: Sendable {
    /// The schema, when the table names one; else the table is found on the `search_path`.
    let schema: _QuotedIdentifier?
    /// The table's own name.
    let table: _QuotedIdentifier
    /// The id column.
    let idColumn: _QuotedIdentifier
    /// The channel name, as `LISTEN` and `pg_notify` take it.
    let channel: _QuotedIdentifier
    /// 16 hexadecimal digits that name this table and channel in the derived names.
    let key: String

    init(schema: String?, table: String, idColumn: String, channel: String) throws(PostgresLiveTableError) {
        self.schema = try schema.map { name throws(PostgresLiveTableError) in try _QuotedIdentifier(name) }
        self.table = try _QuotedIdentifier(table)
        self.idColumn = try _QuotedIdentifier(idColumn)
        self.channel = try _QuotedIdentifier(channel)
        // postgres-nio (1.33) writes the channel into `LISTEN "…"` itself, without doubling quotes: a channel
        // with a double quote would break that statement, so it is refused here.
        guard !channel.contains("\"") else {
            throw .invalidIdentifier(
                channel, reason: "a channel name with a double quote cannot be listened to through postgres-nio")
        }
        self.key = _StableHash.hex([Self.normalized(schema: schema) ?? "", table, channel])
    }

    /// The schema as the derived names see it: `public`, the default schema, counts as none, so that a table
    /// named with and without it gets one trigger function and one set of triggers, not two.
    static func normalized(schema: String?) -> String? {
        schema == "public" ? nil : schema
    }

    /// The table, schema-qualified when a schema was given: `"schema"."table"`.
    var qualifiedTable: String { qualified(table) }

    /// The trigger function: one per table and channel, in the table's schema.
    var function: String { qualified(try! _QuotedIdentifier("liveresults_notify_\(key)")) }

    /// The row trigger (`AFTER INSERT OR UPDATE OR DELETE … FOR EACH ROW`), which counts the deferred firings to come.
    var rowTrigger: String { "\"liveresults_\(key)_rows\"" }

    /// The deferred constraint trigger that sends the rows' notifications at commit, the last one marked.
    ///
    /// Its name sorts after ``rowTrigger``'s: triggers on one event fire in the order of their names, and
    /// when a session makes the constraint trigger immediate (`SET CONSTRAINTS ALL IMMEDIATE`), a row's
    /// count must come before its notification.
    var sendTrigger: String { "\"liveresults_\(key)_send\"" }

    /// The deferred trigger of payload format 1, which sent a `commit` marker: dropped when the triggers are installed.
    var formatOneCommitTrigger: String { "\"liveresults_\(key)_commit\"" }

    /// The statement trigger that reports a `TRUNCATE`.
    var truncateTrigger: String { "\"liveresults_\(key)_truncate\"" }

    /// The key of the transaction-level advisory lock that serializes installations of these triggers.
    var lockKey: Int64 { Int64(bitPattern: UInt64(key, radix: 16) ?? 0) }

    private func qualified(_ name: _QuotedIdentifier) -> String {
        schema.map { "\($0.sql).\(name.sql)" } ?? name.sql
    }
}
