import PostgresNIO

/// The statements that install and remove a table's triggers. Only quoted identifiers are written into
/// them; the trigger function's body is the same text for every table, and reads the channel, the id
/// column and the name of its transaction settings from its trigger arguments.
enum _TriggerSQL {
    /// The trigger function's body (PL/pgSQL). Arguments: channel, id column, key, kind (`row`, `send`,
    /// `truncate`).
    ///
    /// The rows' notifications are sent by the deferred `send` firings, at commit, one per row (two for
    /// an update that changes the id), so that the last one can say it is the last (`"end":true`): the
    /// immediate `row` firings count the deferred ones to come in a transaction-local setting (`p`), and
    /// each deferred firing counts down. A second setting numbers the transaction's notifications (`n`),
    /// which keeps payloads distinct: PostgreSQL drops a notification identical to an earlier one of the
    /// same transaction. The payload is built by concatenation, in the one form the listener reads
    /// without a JSON decoder.
    static let functionBody = #"""
        DECLARE
            channel text := TG_ARGV[0];
            id_column text := TG_ARGV[1];
            pending_setting text := 'liveresults.p_' || TG_ARGV[2];
            number_setting text := 'liveresults.n_' || TG_ARGV[2];
            kind text := TG_ARGV[3];
            pending bigint := coalesce(nullif(current_setting(pending_setting, true), ''), '0')::bigint;
            n bigint;
            head text;
            old_row json;
            new_json json;
            new_row text;
            new_id text;
            rekeyed boolean := false;
            payload text;
        BEGIN
            IF kind = 'row' THEN
                PERFORM set_config(pending_setting, (pending + 1)::text, true);
                RETURN NULL;
            END IF;
            n := coalesce(nullif(current_setting(number_setting, true), ''), '0')::bigint;
            head := '{"v":2,"tx":"' || txid_current() || '","n":';
            IF kind = 'truncate' THEN
                n := n + 1;
                PERFORM set_config(number_setting, n::text, true);
                PERFORM pg_notify(channel, head || n || ',"end":true,"op":"truncate"}');
                RETURN NULL;
            END IF;
            pending := pending - 1;
            PERFORM set_config(pending_setting, pending::text, true);
            IF TG_OP <> 'INSERT' THEN
                old_row := row_to_json(OLD);
            END IF;
            IF TG_OP <> 'DELETE' THEN
                new_json := row_to_json(NEW);
                new_row := new_json::text;
                new_id := coalesce((new_json -> id_column)::text, 'null');
            END IF;
            IF TG_OP = 'UPDATE' THEN
                rekeyed := (old_row -> id_column)::text IS DISTINCT FROM new_id;
            END IF;
            IF TG_OP = 'DELETE' OR rekeyed THEN
                n := n + 1;
                PERFORM pg_notify(channel, head || n || ',"end":'
                    || CASE WHEN pending = 0 AND NOT rekeyed THEN 'true' ELSE 'false' END
                    || ',"op":"delete","id":' || coalesce((old_row -> id_column)::text, 'null') || '}');
            END IF;
            IF TG_OP <> 'DELETE' THEN
                n := n + 1;
                payload := head || n || ',"end":' || CASE WHEN pending = 0 THEN 'true' ELSE 'false' END
                    || ',"op":"' || CASE WHEN TG_OP = 'INSERT' OR rekeyed THEN 'insert' ELSE 'update' END
                    || '","id":' || new_id;
                IF octet_length(payload) + octet_length(new_row) + 8 < 8000 THEN
                    payload := payload || ',"row":' || new_row || '}';
                ELSE
                    payload := payload || '}';
                END IF;
                PERFORM pg_notify(channel, payload);
            END IF;
            PERFORM set_config(number_setting, n::text, true);
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
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.formatOneCommitTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.sendTrigger) ON \(table)"),
            PostgresQuery(
                unsafeSQL: """
                    CREATE CONSTRAINT TRIGGER \(names.sendTrigger) AFTER INSERT OR UPDATE OR DELETE ON \(table)
                    DEFERRABLE INITIALLY DEFERRED
                    FOR EACH ROW EXECUTE FUNCTION \(names.function)(\(arguments), "send")
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
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.sendTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.formatOneCommitTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP TRIGGER IF EXISTS \(names.truncateTrigger) ON \(table)"),
            PostgresQuery(unsafeSQL: "DROP FUNCTION IF EXISTS \(names.function)()"),
        ]
    }
}
