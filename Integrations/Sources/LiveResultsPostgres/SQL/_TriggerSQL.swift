import PostgresNIO

/// The statements that install and remove a table's triggers. Only quoted identifiers are written into
/// them; the trigger function's body is the same text for every table, and reads the channel, the id
/// column and the name of its transaction settings from its trigger arguments.
enum _TriggerSQL {
    /// The trigger function's body (PL/pgSQL). Arguments: channel, id column, key, kind (`row`, `commit`,
    /// `truncate`). A transaction-local setting counts the transaction's notifications (`n`); a second one
    /// remembers the count at the last `commit` marker, so that each deferred firing after new rows sends
    /// one marker, and the transaction's last notification on the channel is always a marker.
    static let functionBody = #"""
        DECLARE
            channel text := TG_ARGV[0];
            id_column text := TG_ARGV[1];
            counter text := 'liveresults.n_' || TG_ARGV[2];
            marked text := 'liveresults.m_' || TG_ARGV[2];
            kind text := TG_ARGV[3];
            tx text := txid_current()::text;
            n bigint := coalesce(nullif(current_setting(counter, true), ''), '0')::bigint;
            old_row json;
            new_row json;
            rekeyed boolean := false;
            payload text;
        BEGIN
            IF kind = 'commit' THEN
                IF n > coalesce(nullif(current_setting(marked, true), ''), '0')::bigint THEN
                    PERFORM set_config(marked, n::text, true);
                    PERFORM pg_notify(channel, json_build_object('v', 1, 'tx', tx, 'n', n, 'op', 'commit')::text);
                END IF;
                RETURN NULL;
            END IF;
            IF kind = 'truncate' THEN
                n := n + 1;
                PERFORM set_config(counter, n::text, true);
                PERFORM pg_notify(channel, json_build_object('v', 1, 'tx', tx, 'n', n, 'op', 'truncate')::text);
                RETURN NULL;
            END IF;
            IF TG_OP <> 'INSERT' THEN
                old_row := row_to_json(OLD);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                new_row := row_to_json(NEW);
            END IF;
            IF TG_OP = 'UPDATE' THEN
                rekeyed := (old_row -> id_column)::text IS DISTINCT FROM (new_row -> id_column)::text;
            END IF;
            IF TG_OP = 'DELETE' OR rekeyed THEN
                n := n + 1;
                PERFORM pg_notify(channel,
                    json_build_object('v', 1, 'tx', tx, 'n', n, 'op', 'delete', 'id', old_row -> id_column)::text);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                n := n + 1;
                payload := json_build_object('v', 1, 'tx', tx, 'n', n,
                    'op', CASE WHEN TG_OP = 'INSERT' OR rekeyed THEN 'insert' ELSE 'update' END,
                    'id', new_row -> id_column, 'row', new_row)::text;
                IF octet_length(payload) >= 8000 THEN
                    payload := json_build_object('v', 1, 'tx', tx, 'n', n,
                        'op', CASE WHEN TG_OP = 'INSERT' OR rekeyed THEN 'insert' ELSE 'update' END,
                        'id', new_row -> id_column)::text;
                END IF;
                PERFORM pg_notify(channel, payload);
            END IF;
            PERFORM set_config(counter, n::text, true);
            RETURN NULL;
        END
        """#

    /// The statements of ``PostgresLiveTable/installTrigger()``, in order, run in one transaction.
    static func install(_ names: _TableNames) -> [PostgresQuery] {
        let table = names.qualifiedTable
        let arguments = [names.channel.sql, names.idColumn.sql, "\"\(names.key)\""].joined(separator: ", ")
        return [
            "SELECT pg_advisory_xact_lock(\(names.lockKey))",
            // Fails with the server's message when the table or the id column does not exist.
            PostgresQuery(unsafeSQL: "SELECT \(names.idColumn.sql) FROM \(table) LIMIT 0"),
            PostgresQuery(
                unsafeSQL: """
                    CREATE OR REPLACE FUNCTION \(names.function)() RETURNS trigger LANGUAGE plpgsql AS $liveresults$
                    \(functionBody)
                    $liveresults$
                    """),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.rowTrigger) ON \(table)"),
            PostgresQuery(
                unsafeSQL: """
                    CREATE TRIGGER \(names.rowTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(table)
                    FOR EACH ROW EXECUTE FUNCTION \(names.function)(\(arguments), "row")
                    """),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.commitTrigger) ON \(table)"),
            PostgresQuery(
                unsafeSQL: """
                    CREATE CONSTRAINT TRIGGER \(names.commitTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(table)
                    DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION \(names.function)(\(arguments), "commit")
                    """),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.truncateTrigger) ON \(table)"),
            PostgresQuery(
                unsafeSQL: """
                    CREATE TRIGGER \(names.truncateTrigger) AFTER TRUNCATE ON \(table)
                    FOR EACH STATEMENT EXECUTE FUNCTION \(names.function)(\(arguments), "truncate")
                    """),
        ]
    }

    /// The statements of ``PostgresLiveTable/removeTrigger()``, in order, run in one transaction.
    static func remove(_ names: _TableNames) -> [PostgresQuery] {
        let table = names.qualifiedTable
        return [
            "SELECT pg_advisory_xact_lock(\(names.lockKey))",
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.rowTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.commitTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.truncateTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(names.function)()"),
        ]
    }
}
