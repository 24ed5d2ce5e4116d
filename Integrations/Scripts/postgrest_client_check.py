#!/usr/bin/env python3
"""The server example through a real PostgREST client: postgrest-py's sync client against LiveResultsServer on a
throwaway PostgreSQL, following its tables through the write-ahead log (`--changes wal`).

    python3 -m venv .venv && .venv/bin/pip install 'postgrest==2.34.*'
    .venv/bin/python Integrations/Scripts/postgrest_client_check.py [path/to/LiveResultsServer [wal|notify|wal-sql]]

What it does, in order (each check prints a line; the first failure stops the run):

1. starts a PostgreSQL cluster with `wal_level = logical` and creates the previous version's table `todos`
   (no `people`, no `assignee_id`) with a row, which the server must upgrade without losing it;
2. starts the server with `--changes wal` (or the second argument);
3. through postgrest-py, on `/people` and `/todos`: inserts one row and several, selects with a projection,
   filters, order and limit, counts (`count="exact"`), `.single()` and `.maybe_single()`, reads the errors
   (their `code` and `message`), updates and deletes by filter, and checks that deleting a person unassigns
   their to-dos (`on delete set null`).

Reads follow writes at once, with no wait: the server answers a read of a live query after its live results
have caught up with every write committed before it (read-your-writes), as PostgREST does. The last line is
`postgrest-py: N passed, N failed`; the exit code is 0 only when every check passed.

A second argument picks how the server learns of changes (`--changes`: `wal`, the default, `notify`, `wal-sql`).
"""

from __future__ import annotations

import signal
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent))
from server_harness import Failure, PostgresCluster, Server, log  # noqa: E402

from postgrest import APIError, SyncPostgrestClient  # noqa: E402

INTEGRATIONS = Path(__file__).resolve().parent.parent
DEFAULT_BINARY = INTEGRATIONS / ".build" / "debug" / "LiveResultsServer"
#: The whole run must end within this (seconds).
DEADLINE = 240


class Checks:
    """The checks, run in order against one server."""

    def __init__(self, client: SyncPostgrestClient, cluster: PostgresCluster) -> None:
        self.client = client
        self.cluster = cluster
        self.passed = 0

    def check(self, what: str, condition: bool, detail: Any = "") -> None:
        if not condition:
            raise Failure(f"{what}: {detail!r}")
        self.passed += 1
        log(f"  ok: {what}")

    def reads(self, what: str, read: Callable[[], Any], expected: Any) -> Any:
        """`read()`, once, gives `expected`: a read that follows a write answers with it (read-your-writes), as
        PostgREST does, however the server learns of the write."""
        seen = read()
        self.check(what, seen == expected, seen)
        return seen

    def refused(self, what: str, request: Callable[[], Any], code: str, message: str | None = None) -> APIError:
        """`request` must raise postgrest-py's APIError with `code` (and `message`), read from the body."""
        try:
            answer = request()
        except APIError as error:
            self.check(f"{what}: code {code}", error.code == code, error.json())
            if message is not None:
                self.check(f"{what}: message", error.message == message, error.message)
            return error
        raise Failure(f"{what}: expected an error {code}, got {answer!r}")

    def run(self) -> None:
        client = self.client
        # The previous version's row survived the upgrade, with the new column.
        old = client.from_("todos").select("*").eq("title", "from the previous version").execute().data
        self.check("the previous version's row is kept, with assignee_id", old == [
            {"id": 1, "title": "from the previous version", "project": "Old", "priority": 5, "assignee_id": None}],
            old)

        # Inserts: one row, several rows (postgrest-py sends columns= and return=representation).
        ann = client.from_("people").insert({"name": "Ann"}).execute().data
        self.check("insert one person answers a list of one row", len(ann) == 1 and ann[0]["name"] == "Ann", ann)
        others = client.from_("people").insert([{"name": "Bo"}, {"name": "Cy"}]).execute().data
        self.check("insert several people answers them all", [p["name"] for p in others] == ["Bo", "Cy"], others)
        ann_id, bo_id = ann[0]["id"], others[0]["id"]
        todo = client.from_("todos").insert(
            {"title": "Milk", "project": "Home", "priority": 2, "assignee_id": ann_id}).execute().data
        self.check("insert one to-do", len(todo) == 1 and todo[0]["assignee_id"] == ann_id, todo)
        batch = client.from_("todos").insert([
            {"title": "Report", "project": "Work", "priority": 1, "assignee_id": bo_id},
            {"title": "Call", "project": "Work", "priority": 3, "assignee_id": ann_id},
            {"title": "Bread", "project": "Home", "priority": 0, "assignee_id": None},
        ]).execute().data
        self.check("insert several to-dos", [t["title"] for t in batch] == ["Report", "Call", "Bread"], batch)
        self.refused(
            "a batch with a bad row is refused", lambda: client.from_("todos").insert([
                {"title": "ok", "project": "Home", "priority": 1},
                {"title": "bad", "project": "Home", "priority": "high"}]).execute(), "22P02")
        self.reads(
            "the refused batch wrote nothing",
            lambda: client.from_("todos").select("id", count="exact").eq("title", "ok").execute().count, 0)

        # Selects: projection, filters, order, limit.
        work = self.reads(
            "select with projection, filter, order and limit",
            lambda: client.from_("todos").select("id,title").eq("project", "Work").order("priority", desc=True)
            .limit(2).execute().data,
            [{"id": batch[1]["id"], "title": "Call"}, {"id": batch[0]["id"], "title": "Report"}])
        self.check("the rows hold exactly the columns asked for", all(set(row) == {"id", "title"} for row in work))
        home = client.from_("todos").select("title").eq("project", "Home").order("priority").execute().data
        self.check("order ascending", [row["title"] for row in home] == ["Bread", "Milk"], home)
        people = client.from_("people").select("name").order("name", desc=True).execute().data
        self.check("/people orders by name", [p["name"] for p in people] == ["Cy", "Bo", "Ann"], people)
        in_list = client.from_("todos").select("title").in_("priority", [0, 3]).order("id").execute().data
        self.check("in filter", [row["title"] for row in in_list] == ["Call", "Bread"], in_list)

        # Counts.
        counted = client.from_("todos").select("*", count="exact").eq("project", "Home").limit(1).execute()
        self.check("count=exact counts without the limit", counted.count == 2 and len(counted.data) == 1,
                   (counted.count, counted.data))
        everything = client.from_("todos").select("id", count="exact").execute()
        self.check("count=exact of every row", everything.count == 5, everything.count)
        headed = client.from_("todos").select("*", count="exact", head=True).eq("project", "Home").execute()
        self.check("head=True counts with HEAD, without rows", headed.count == 2 and not headed.data,
                   (headed.count, headed.data))
        negated = client.from_("todos").select("title").not_.eq("project", "Home").order("id").execute().data
        self.check("not_ negates a filter", [row["title"] for row in negated] == [
                   "from the previous version", "Report", "Call"],
                   negated)

        # Embedding: many-to-one, one-to-many with the children's own order and limit, !inner, two levels.
        assigned = client.from_("todos").select("title,assignee:people(name)").eq("project", "Work") \
            .order("priority", desc=True).execute().data
        self.check("each to-do embeds its assignee", assigned == [
            {"title": "Call", "assignee": {"name": "Ann"}}, {"title": "Report", "assignee": {"name": "Bo"}}], assigned)
        joined = self.cluster.psql(
            "SELECT string_agg(t.title || ':' || coalesce(p.name, '-'), ',' ORDER BY t.id) "
            "FROM todos t LEFT JOIN people p ON p.id = t.assignee_id")
        embedded = client.from_("todos").select("title,people(name)").order("id").execute().data
        rendered = ",".join(f"{row['title']}:{(row['people'] or {}).get('name', '-')}" for row in embedded)
        self.check("the embedded assignees equal PostgreSQL's own join", rendered == joined, (rendered, joined))
        owners = client.from_("people").select("name,todos(title)").order("name") \
            .order("priority", desc=True, foreign_table="todos").limit(1, foreign_table="todos").execute().data
        self.check("each person embeds their most urgent to-do", owners == [
            {"name": "Ann", "todos": [{"title": "Call"}]}, {"name": "Bo", "todos": [{"title": "Report"}]},
            {"name": "Cy", "todos": []}], owners)
        anns = client.from_("todos").select("title,assignee:people!inner(name)").eq("assignee.name", "Ann") \
            .order("id").execute().data
        self.check("!inner with a filter on the embedded column",
                   [row["title"] for row in anns] == ["Milk", "Call"], anns)
        nested = client.from_("people").select("name,todos(title,owner:people(name))").eq("id", bo_id) \
            .execute().data
        self.check("two levels of embedding", nested == [
            {"name": "Bo", "todos": [{"title": "Report", "owner": {"name": "Bo"}}]}], nested)

        # One object.
        single = client.from_("todos").select("title,priority").eq("id", batch[0]["id"]).single().execute()
        self.check(".single() answers the object", single.data == {"title": "Report", "priority": 1}, single.data)
        self.refused(
            ".single() of no row", lambda: client.from_("todos").select("*").eq("project", "None").single().execute(),
            "PGRST116", "Cannot coerce the result to a single JSON object")
        self.refused(
            ".single() of several rows",
            lambda: client.from_("todos").select("*").eq("project", "Home").single().execute(), "PGRST116")
        none = client.from_("todos").select("*").eq("project", "None").maybe_single().execute()
        self.check(".maybe_single() of no row is None", none is None, none)
        one = client.from_("people").select("name").eq("id", ann_id).maybe_single().execute()
        self.check(".maybe_single() of one row", one is not None and one.data == {"name": "Ann"}, one)

        # Errors, as postgrest-py reads them.
        self.refused(
            "an unknown column", lambda: client.from_("todos").select("id,nope").execute(), "42703",
            "column todos.nope does not exist")
        self.refused(
            "a filter on an unknown column", lambda: client.from_("people").select("*").eq("title", "x").execute(),
            "42703", "column people.title does not exist")
        self.refused(
            "an embedded resource the route does not declare",
            lambda: client.from_("todos").select("id,owners(name)").execute(), "PGRST200",
            "Could not find a relationship between 'todos' and 'owners' in the schema cache")
        self.refused(
            "an embedded resource's unknown column",
            lambda: client.from_("todos").select("id,people(age)").execute(), "42703",
            "column people.age does not exist")
        self.refused(
            "a select that does not parse", lambda: client.from_("todos").select("id,(").execute(), "PGRST100")
        self.refused(
            "a foreign key to no person",
            lambda: client.from_("todos").insert({"title": "x", "project": "Home", "priority": 1,
                                                  "assignee_id": 999}).execute(), "23503")
        self.refused(
            "an update without a filter", lambda: client.from_("todos").update({"priority": 1}).execute(), "21000",
            "UPDATE requires a WHERE clause")

        # Updates and deletes by filter.
        updated = client.from_("todos").update({"priority": 9}).eq("project", "Home").execute().data
        self.check("update by filter answers the rows", sorted(t["title"] for t in updated) == ["Bread", "Milk"]
                   and all(t["priority"] == 9 for t in updated), updated)
        self.reads(
            "the update reached the live results",
            lambda: [t["priority"] for t in client.from_("todos").select("priority").eq("project", "Home")
                     .execute().data], [9, 9])
        renamed = client.from_("people").update({"name": "Bob"}).eq("name", "Bo").execute().data
        self.check("update people by filter", [p["name"] for p in renamed] == ["Bob"], renamed)
        deleted = client.from_("todos").delete().eq("project", "Work").execute().data
        self.check("delete by filter answers the rows", sorted(t["title"] for t in deleted) == ["Call", "Report"],
                   deleted)
        self.reads(
            "the delete reached the live results",
            lambda: client.from_("todos").select("title", count="exact").eq("project", "Work").execute().count, 0)
        gone = client.from_("people").delete().eq("id", ann_id).execute().data
        self.check("delete a person by filter", [p["name"] for p in gone] == ["Ann"], gone)
        self.reads(
            "deleting a person unassigns their to-dos (on delete set null)",
            lambda: client.from_("todos").select("assignee_id").eq("title", "Milk").single().execute().data,
            {"assignee_id": None})
        table = self.cluster.psql("SELECT count(*) FROM todos WHERE assignee_id IS NOT NULL")
        self.check("the table agrees", table == "0", table)


def main(argv: list[str]) -> int:
    binary = Path(argv[1]) if len(argv) > 1 else DEFAULT_BINARY
    changes = argv[2] if len(argv) > 2 else "wal"
    signal.signal(signal.SIGALRM, lambda *_: (_ for _ in ()).throw(Failure(f"over the {DEADLINE} s deadline")))
    signal.alarm(DEADLINE)
    cluster = PostgresCluster(database="liveresults_postgrest", settings=["wal_level=logical"])
    server: Server | None = None
    checks: Checks | None = None
    failed = 0
    try:
        log("postgrest-py: starting PostgreSQL (wal_level = logical) with the previous version's table")
        cluster.start()
        cluster.psql(
            "CREATE TABLE todos (id bigserial PRIMARY KEY, title text NOT NULL, project text NOT NULL, "
            "priority int NOT NULL); "
            "INSERT INTO todos (title, project, priority) VALUES ('from the previous version', 'Old', 5)")
        log(f"postgrest-py: starting the server with --changes {changes}")
        server = Server(binary, cluster.url, 0, Path(tempfile.mkstemp(prefix="postgrest-check-", suffix=".log")[1]),
                        arguments=["--changes", changes])
        port = server.wait_until_running()
        checks = Checks(SyncPostgrestClient(f"http://127.0.0.1:{port}"), cluster)
        checks.run()
    except Exception as error:  # noqa: BLE001  (every failure is reported, then the run fails)
        failed = 1
        log(f"FAILED: {error}")
        traceback.print_exc()
        if server is not None:
            log(server.log_tail())
    finally:
        signal.alarm(0)
        if server is not None:
            server.kill()
        cluster.stop()
    log(f"postgrest-py: {checks.passed if checks else 0} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
