#!/usr/bin/env python3
"""A real headless-browser test of LiveResultsServer's page, against a real PostgreSQL.

    python3 Integrations/BrowserTests/test_page.py [path/to/LiveResultsServer]

What it does, in order (each step is one check; the first that fails stops the run):

1. starts a throwaway PostgreSQL cluster (initdb + postgres, as the `postgres` user when run as root) on a
   free loopback port, trust authentication, and creates a database;
2. starts the server with `--port 0 --postgres URL` and reads the port it chose from its first line;
3. opens the page in headless Chromium (Debian's `chromium` + `chromium-driver`) and waits until it is live;
4. makes writes through the REST API and straight into the table with `psql`; after each, waits until the
   table (read with psql), `GET /todos` and the page's DOM all show the same rows, and the page shows the
   version `GET /todos` gives; checks that the page applied change sets (its update counter grew, it never
   resynced, it was never reloaded, and rows that stayed kept their DOM nodes);
5. makes a burst of writes without waiting between them, then checks the same;
6. writes through the page itself: its form, its ▲ and ✕ buttons, and a refused write whose error it shows;
7. stops PostgreSQL while the server runs, sees the page show "reconnecting to the database", starts it
   again, and waits until the page is live and shows a write made straight into the table;
8. stops the server with SIGTERM (exit 0 expected), sees the page leave "live", writes into the table while
   the server is down, starts it again on the same port, and waits until the page is live and shows that
   write;
9. saves a screenshot to Integrations/.build-browser/page.png.

Everything it started (browser, server, cluster) is stopped on the way out, failure or not, and the whole run
has a deadline. The last line is `BrowserTests: N passed, N failed, N skipped`; the exit code is 0 only when
every step passed.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import signal
import sys
import time
import traceback
import urllib.error
import urllib.request
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "Scripts"))
from server_harness import (  # noqa: E402  (the shared harness, found through the path above)
    Failure,
    PostgresCluster,
    Server,
    log,
    sql_literal,
    wait_until,
)

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select

INTEGRATIONS = Path(__file__).resolve().parent.parent
DEFAULT_BINARY = INTEGRATIONS / ".build" / "debug" / "LiveResultsServer"
OUTPUT = INTEGRATIONS / ".build-browser"
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"

#: The whole run, browser start and both server starts included, must end within this (seconds).
DEADLINE = 170
#: How long one write may take to reach the server's results and the page (seconds).
WRITE_TIMEOUT = 10
#: How long the page may take to be live again after the restart (its backoff reaches 10 s).
RECONNECT_TIMEOUT = 30
#: How long the server stays down between SIGTERM and the restart (seconds, after the page left "live").
DOWNTIME = 2.0


class Stopped(Exception):
    """The run was stopped: over its deadline (SIGALRM) or by SIGTERM. Not a Failure, so no polling loop
    retries it."""


class Api:
    """The server's REST API and whole results, through urllib (no extra dependency)."""

    def __init__(self, port: int) -> None:
        self.base = f"http://127.0.0.1:{port}"

    def request(self, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
        data = json.dumps(body).encode() if body is not None else None
        # The versioned whole results, not PostgREST's rows, for a GET.
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json",
                                                  "Accept": "application/vnd.liveresults+json"})
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                text = response.read().decode()
                return response.status, json.loads(text) if text else None
        except urllib.error.HTTPError as error:
            return error.code, error.read().decode()

    def expect(self, method: str, path: str, body: dict[str, Any] | None, status: int) -> Any:
        got, answer = self.request(method, path, body)
        if got != status:
            raise Failure(f"{method} {path} {body} answered {got} {answer!r}, not {status}")
        return answer

    def results(self, query: str = "") -> dict[str, Any]:
        """`GET /todos?query`: the whole results of a live query's window (the server's default without one),
        sectioned by project as the page asks."""
        query = query if "sections=" in query else "sections=project" + (f"&{query}" if query else "")
        return self.expect("GET", f"/todos?{query}", None, 200)


# ---- The views being compared ---------------------------------------------------------------------------


def sections_of_rows(rows: list[dict[str, Any]]) -> list[tuple[str, list[tuple[int, str, int]]]]:
    """The table's rows in the order the server's controller shows them: sections by project (ascending),
    rows by priority, then id. The test's own statement of the ordering, checked against the server's.
    """
    ordered = sorted(rows, key=lambda row: (row["project"], row["priority"], row["id"]))
    sections: list[tuple[str, list[tuple[int, str, int]]]] = []
    for row in ordered:
        if not sections or sections[-1][0] != row["project"]:
            sections.append((row["project"], []))
        sections[-1][1].append((row["id"], row["title"], row["priority"]))
    return sections


def sections_of_results(results: dict[str, Any]) -> list[tuple[str, list[tuple[int, str, int]]]]:
    """`GET /todos`'s sections, in the shape above; also checks each entity sits in its project's section."""
    if results.get("format") != 1 or results.get("base") is not None:
        raise Failure(f"GET /todos is not whole results of format 1: {results!r}")
    sections = []
    for section in results["sections"]:
        for entity in section["entities"]:
            if entity["project"] != section["name"]:
                raise Failure(f"GET /todos has {entity} in section {section['name']!r}")
        sections.append((section["name"], [(e["id"], e["title"], e["priority"]) for e in section["entities"]]))
    return sections


#: Reads the page as the person sees it: the sections and rows of the DOM, plus the page's own counters.
READ_PAGE = """
const sections = [...document.querySelectorAll("#sections > section")].map((section) => ({
  name: section.dataset.name,
  heading: section.querySelector(":scope > h2").textContent,
  rows: [...section.querySelectorAll(":scope > ol > li")].map((row) => ({
    id: Number(row.dataset.id), title: row.querySelector(".title").textContent,
    priority: Number(row.dataset.priority), shownPriority: row.querySelector(".priority").textContent,
  })),
}));
const live = window.liveResults || {};
return {
  sections, state: document.getElementById("state").dataset.state,
  versionText: document.getElementById("version").textContent,
  emptyHidden: document.getElementById("empty").hidden,
  version: live.version, updates: live.updates, resyncs: live.resyncs, token: window.__browserTestToken || null,
};
"""


@dataclass
class PageView:
    """One reading of the page."""

    sections: list[tuple[str, list[tuple[int, str, int]]]]
    state: str
    version_text: str
    version: str | None
    updates: int
    resyncs: int
    token: str | None
    problems: list[str] = field(default_factory=list)


def read_page(driver: webdriver.Chrome) -> PageView:
    """The page's rows from the DOM (not from its JavaScript state), and what is inconsistent within it."""
    raw = driver.execute_script(READ_PAGE)
    problems = []
    sections = []
    for section in raw["sections"]:
        if section["heading"] != section["name"]:
            problems.append(f"section {section['name']!r} is headed {section['heading']!r}")
        rows = []
        for row in section["rows"]:
            if row["shownPriority"] != f"p{row['priority']}":
                problems.append(f"row {row['id']} shows {row['shownPriority']!r} for priority {row['priority']}")
            rows.append((row["id"], row["title"], row["priority"]))
        sections.append((section["name"], rows))
    if raw["emptyHidden"] != bool(sections):
        problems.append(f"'Nothing to do.' is {'hidden' if raw['emptyHidden'] else 'shown'} with "
                        f"{len(sections)} sections")
    return PageView(sections, raw["state"], raw["versionText"], raw["version"], raw["updates"] or 0,
                    raw["resyncs"] or 0, raw["token"], problems)


def describe(sections: list[tuple[str, list[tuple[int, str, int]]]]) -> str:
    return "; ".join(f"{name}: " + ", ".join(f"{id}:{title!r}/p{priority}" for id, title, priority in rows)
                     for name, rows in sections) or "(nothing)"


def wait_until_consistent(driver: webdriver.Chrome, api: Api, cluster: PostgresCluster, what: str,
                          timeout: float = WRITE_TIMEOUT) -> tuple[PageView, str]:
    """Waits until the table, `GET /todos` and the page agree, and returns the page and the version.

    The table (read with psql, the ground truth) fixes what is expected, so a write that never reached the
    server cannot pass as "page equals server". The page must also show the server's version: equal rows at
    another version would mean the page missed or skipped an update.
    """
    expected = sections_of_rows(cluster.rows())
    seen: dict[str, Any] = {}

    def consistent() -> tuple[PageView, str] | None:
        # The page streams a live query (its filter, order and window): GET of the same query shares its versions.
        results = api.results(driver.execute_script("return queryString()"))
        server = sections_of_results(results)
        page = read_page(driver)
        seen.update(server=server, version=results["version"], page=page)
        return (page, results["version"]) if (
            server == expected and page.sections == server and not page.problems
            and page.version == results["version"] and page.version_text == f"version {results['version']}"
        ) else None

    try:
        return wait_until(consistent, timeout, f"the page and GET /todos show the table after {what}")
    except Failure as failure:
        page = seen.get("page")
        raise Failure(
            f"{failure}\n  table:  {describe(expected)}\n  server: {describe(seen.get('server', []))} "
            f"at {seen.get('version')}\n  page:   {describe(page.sections) if page else '?'} "
            f"({page.version_text if page else '?'}, {page.state if page else '?'})"
            + (f"\n  page problems: {page.problems}" if page and page.problems else "")) from None


# ---- The browser ----------------------------------------------------------------------------------------


def start_browser() -> webdriver.Chrome:
    """Debian's headless Chromium through Debian's chromedriver.

    Both paths are given, so Selenium Manager never runs (it would try to download a driver, and this
    machine reaches no such site). --no-sandbox lets Chromium run as root; --disable-dev-shm-usage keeps it
    off a small /dev/shm in containers.
    """
    for path in (CHROMIUM, CHROMEDRIVER):
        if not os.access(path, os.X_OK):
            raise Failure(f"{path} is missing: apt-get install chromium chromium-driver")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1000,900", "--no-first-run", "--disable-extensions"):
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    driver.set_page_load_timeout(30)
    driver.set_script_timeout(10)
    return driver


#: Marks every row's DOM node with its id, so a later reading tells the same node from a re-created one.
TAG_ROWS = """
for (const row of document.querySelectorAll("#sections li")) row.__browserTestTag = row.dataset.id;
"""

#: The ids whose row is still the node tagged before (and those that are new nodes).
READ_TAGS = """
const kept = [], fresh = [];
for (const row of document.querySelectorAll("#sections li")) {
  (row.__browserTestTag === row.dataset.id ? kept : fresh).push(Number(row.dataset.id));
}
return { kept, fresh };
"""


# ---- The scenario ---------------------------------------------------------------------------------------


@dataclass
class Scenario:
    """The state shared by the steps: what was started (for the clean-up) and what was learned."""

    binary: Path
    cluster: PostgresCluster | None = None
    server: Server | None = None
    api: Api | None = None
    driver: webdriver.Chrome | None = None
    port: int = 0
    starts: int = 0
    ids: dict[str, int] = field(default_factory=dict)

    def start_server(self, port: int) -> None:
        assert self.cluster is not None
        self.starts += 1
        self.server = Server(self.binary, self.cluster.url, port, OUTPUT / f"server-{self.starts}.log")
        self.port = self.server.wait_until_running()
        if port and self.port != port:
            raise Failure(f"the server was asked for port {port} and listens on {self.port}")
        self.api = Api(self.port)

    def consistent(self, what: str, timeout: float = WRITE_TIMEOUT) -> tuple[PageView, str]:
        assert self.driver and self.api and self.cluster
        return wait_until_consistent(self.driver, self.api, self.cluster, what, timeout)

    def clean_up(self) -> None:
        """Stops whatever was started, each step on its own, so one failing does not leave the others."""
        if self.driver is not None:
            with contextlib.suppress(Exception):
                self.driver.quit()
        if self.server is not None:
            with contextlib.suppress(Exception):
                self.server.kill()
        if self.cluster is not None:
            with contextlib.suppress(Exception):
                self.cluster.stop()


def step_start_database(s: Scenario) -> None:
    """A cluster and a database of its own: the test never touches a database it did not make."""
    s.cluster = PostgresCluster()
    s.cluster.start()
    log(f"  PostgreSQL on 127.0.0.1:{s.cluster.port}, database {s.cluster.database}")


def step_start_server(s: Scenario) -> None:
    """`--port 0`: the system picks a free port, and the test learns it from the server's first line."""
    if not os.access(s.binary, os.X_OK):
        raise Failure(f"no server binary at {s.binary}: swift build --package-path Integrations")
    s.start_server(0)
    log(f"  server on port {s.port}")


def step_open_page(s: Scenario) -> None:
    """The page connects and shows the (empty) table; a token marks this page load to detect reloads."""
    s.driver = start_browser()
    s.driver.get(f"http://127.0.0.1:{s.port}/")
    wait_until(lambda: read_page(s.driver).state == "live", 15, "the page is live")
    s.driver.execute_script(f"window.__browserTestToken = {json.dumps(str(uuid.uuid4()))};")
    s.consistent("opening the page")


def rest_writes(s: Scenario) -> list[tuple[str, Callable[[], None]]]:
    """About twenty writes through the REST API, each paired with its description.

    Between them they insert sections before, between and after others, move rows within a section and
    across sections, update a title in place, change several fields at once, empty and remove sections,
    and use titles that would break naive HTML (markup, quotes, non-Latin text).
    """
    assert s.api
    api = s.api

    def post(name: str, title: str, project: str, priority: int) -> Callable[[], None]:
        def write() -> None:
            body = {"title": title, "project": project, "priority": priority}
            todo = api.expect("POST", "/todos", body, 201)
            if {k: todo[k] for k in body} != body:
                raise Failure(f"POST /todos {body} answered {todo}")
            s.ids[name] = todo["id"]
        return write

    def patch(name: str, **body: Any) -> Callable[[], None]:
        def write() -> None:
            todo = api.expect("PATCH", f"/todos/{s.ids[name]}", body, 200)
            if any(todo[k] != v for k, v in body.items()) or todo["id"] != s.ids[name]:
                raise Failure(f"PATCH /todos/{s.ids[name]} {body} answered {todo}")
        return write

    def delete(name: str) -> Callable[[], None]:
        return lambda: api.expect("DELETE", f"/todos/{s.ids[name]}", None, 204)

    return [
        ("POST milk (Home, first section)", post("milk", "Buy milk", "Home", 2)),
        ("POST mum (Home, before milk)", post("mum", "Call mum", "Home", 1)),
        ("POST report (Work, section after)", post("report", "Write report", "Work", 3)),
        ("POST review (Work, before report)", post("review", "Review PR", "Work", 2)),
        ("POST lawn (Garden, section first)", post("lawn", "Mow the lawn", "Garden", 2)),
        ("POST markup title", post("markup", '<b>not bold</b> & "quoted" <script>x</script>', "Home", 3)),
        ("POST unicode title", post("unicode", "Ünïcödé ✓ Ελληνικά Кириллица 𝔘𝔫𝔦", "Work", 1)),
        ("PATCH review priority 0 (to the top)", patch("review", priority=0)),
        ("PATCH milk title (in place)", patch("milk", title="Buy oat milk")),
        ("PATCH mum project Work (across)", patch("mum", project="Work")),
        ("PATCH lawn project Errands (section swap)", patch("lawn", project="Errands")),
        ("POST letter (Errands)", post("letter", "Post letter", "Errands", 1)),
        ("DELETE report", delete("report")),
        ("PATCH markup priority+title", patch("markup", priority=1, title="Tidy <the> shed")),
        ("POST cat (Zoo, last section)", post("cat", "Feed the cat", "Zoo", 5)),
        ("PATCH unicode priority 9 (to the end)", patch("unicode", priority=9)),
        ("DELETE cat (last section goes)", delete("cat")),
        ("PATCH letter all fields (to Home)", patch("letter", title="Post two letters", project="Home", priority=2)),
        ("POST tie (Home, same priority as milk)", post("tie", "Water plants", "Home", 2)),
        ("DELETE lawn", delete("lawn")),
        ("PATCH tie priority -1", patch("tie", priority=-1)),
    ]


#: Titles that need SQL quoting (psql gets them as literals made by sql_literal).
QUOTED = "\"It's SQL\""
APOSTROPHE = "Don't forget"


def sql_writes(s: Scenario) -> list[tuple[str, Callable[[], None]]]:
    """About eight writes straight into the table: the trigger, not the REST API, must bring them to the page.

    Several touch many rows in one statement or one transaction, so one change set carries many changes.
    """
    assert s.cluster
    psql = s.cluster.psql

    def insert_one() -> None:
        s.ids["sql"] = int(psql("INSERT INTO todos (title, project, priority) "
                                "VALUES ('From SQL', 'Home', 0) RETURNING id"))

    return [
        ("SQL INSERT one (Home top)", insert_one),
        ("SQL INSERT three rows, two sections", lambda: psql(
            "INSERT INTO todos (title, project, priority) VALUES "
            f"('Batch one', 'Batch', 2), ('Batch two', 'Batch', 1), ({sql_literal(QUOTED)}, 'Work', 4)")),
        ("SQL UPDATE Work priorities +1", lambda: psql(
            "UPDATE todos SET priority = priority + 1 WHERE project = 'Work'")),
        ("SQL UPDATE title with a quote", lambda: psql(
            f"UPDATE todos SET title = {sql_literal(APOSTROPHE)} WHERE id = {s.ids['sql']}")),
        ("SQL DELETE a section's rows", lambda: psql("DELETE FROM todos WHERE project = 'Batch'")),
        ("SQL transaction INSERT+UPDATE+DELETE", lambda: psql(
            "BEGIN; INSERT INTO todos (title, project, priority) VALUES ('In a transaction', 'Errands', 3); "
            f"UPDATE todos SET priority = 7 WHERE id = {s.ids['milk']}; "
            f"DELETE FROM todos WHERE id = {s.ids['mum']}; COMMIT;")),
        ("SQL UPDATE project to a new section", lambda: psql(
            f"UPDATE todos SET project = 'Archive' WHERE id = {s.ids['review']}")),
        ("SQL DELETE one row", lambda: psql(f"DELETE FROM todos WHERE id = {s.ids['sql']}")),
    ]


def interleave(first: list[Any], second: list[Any]) -> list[Any]:
    """`first` with one of `second` after every few of its elements: REST and SQL writes alternate."""
    every = max(1, len(first) // (len(second) + 1))
    merged, rest = [], list(second)
    for index, item in enumerate(first, 1):
        merged.append(item)
        if index % every == 0 and rest:
            merged.append(rest.pop(0))
    return merged + rest


def step_writes(s: Scenario) -> None:
    """After each write, the page shows what the table holds, by change sets and not by reloading.

    Each write must raise the page's update counter and leave its resync counter at 0; every row that exists
    before and after a write must still be the same DOM node (a change set moves and updates rows, it does
    not re-create them); and the page-load token must survive (no reload).
    """
    assert s.driver
    writes = interleave(rest_writes(s), sql_writes(s))
    page, _ = s.consistent("opening")
    first_updates = page.updates
    token = page.token
    for number, (what, write) in enumerate(writes, 1):
        before = read_page(s.driver)
        s.driver.execute_script(TAG_ROWS)
        ids_before = {id for _, rows in before.sections for id, _, _ in rows}
        write()
        page, version = s.consistent(what)
        tags = s.driver.execute_script(READ_TAGS)
        ids_after = {id for _, rows in page.sections for id, _, _ in rows}
        recreated = sorted(set(tags["fresh"]) & ids_before)
        if recreated:
            raise Failure(f"{what}: rows {recreated} were re-created instead of kept")
        if set(tags["kept"]) != ids_before & ids_after:
            raise Failure(f"{what}: kept nodes {sorted(tags['kept'])}, expected {sorted(ids_before & ids_after)}")
        if page.updates <= before.updates:
            raise Failure(f"{what}: the page's update counter stayed at {page.updates}")
        if page.resyncs != 0:
            raise Failure(f"{what}: the page resynced ({page.resyncs})")
        if page.token != token:
            raise Failure(f"{what}: the page was reloaded")
        log(f"  {number:2}. {what}: {sum(len(rows) for _, rows in page.sections)} rows in "
            f"{len(page.sections)} sections, version {version}")
    log(f"  {len(writes)} writes, {page.updates - first_updates} updates applied, 0 resyncs")


def step_untouched_row(s: Scenario) -> None:
    """The node check in its plainest form: one row tagged by hand, a write in another section,
    and the same node afterwards, neither re-created nor re-filled (its title node is the same too).
    """
    assert s.driver and s.cluster
    page = read_page(s.driver)
    home = dict(page.sections).get("Home")
    if not home:
        raise Failure(f"no Home section to watch: {describe(page.sections)}")
    watched = home[0][0]
    s.driver.execute_script(
        "const row = document.querySelector(`#sections li[data-id='${arguments[0]}']`);"
        "row.__untouched = 'yes'; row.querySelector('.title').__untouched = 'yes';", watched)
    s.cluster.psql("INSERT INTO todos (title, project, priority) VALUES ('Unrelated', 'Work', 1)")
    s.consistent("an unrelated write")
    same = s.driver.execute_script(
        "const row = document.querySelector(`#sections li[data-id='${arguments[0]}']`);"
        "return row.__untouched === 'yes' && row.querySelector('.title').__untouched === 'yes';", watched)
    if not same:
        raise Failure(f"row {watched} (Home) is a new node after a write in Work")
    log(f"  row {watched} kept its node across a write elsewhere")


def step_burst(s: Scenario) -> None:
    """Writes back to back, without waiting between them: the controller may fold several into one change
    set, and the page must still end where the table is, without a resync and without re-creating rows.
    """
    assert s.driver and s.api and s.cluster
    api, psql = s.api, s.cluster.psql
    before = read_page(s.driver)
    s.driver.execute_script(TAG_ROWS)
    ids_before = {id for _, rows in before.sections for id, _, _ in rows}
    burst = [api.expect("POST", "/todos", {"title": f"Burst {n}", "project": "Burst", "priority": n % 3}, 201)["id"]
             for n in range(8)]
    for n, id in enumerate(burst[:4]):
        api.expect("PATCH", f"/todos/{id}", {"priority": 10 - n}, 200)
    psql(f"UPDATE todos SET project = 'Home' WHERE id IN ({burst[4]}, {burst[5]})")
    for id in burst[6:]:
        api.expect("DELETE", f"/todos/{id}", None, 204)
    psql("UPDATE todos SET title = title || ' (bumped)' WHERE project = 'Work'")
    page, version = s.consistent("a burst of 16 writes")
    tags = s.driver.execute_script(READ_TAGS)
    recreated = sorted(set(tags["fresh"]) & ids_before)
    if recreated:
        raise Failure(f"the burst re-created rows {recreated}")
    if page.resyncs != 0:
        raise Failure(f"the page resynced ({page.resyncs}) during the burst")
    log(f"  16 writes arrived in {page.updates - before.updates} updates, version {version}")


def step_page_controls(s: Scenario) -> None:
    """The page's own writes: its form and its ▲ / ✕ buttons, clicked as a person would, and a refused
    write whose error the page must show (3e9 is no PostgreSQL int: the server answers 400).
    """
    assert s.driver and s.cluster
    driver = s.driver
    form = driver.find_element(By.ID, "add")

    def fill(title: str, project: str, priority: str) -> None:
        for name, value in (("title", title), ("project", project), ("priority", priority)):
            element = form.find_element(By.NAME, name)
            element.clear()
            element.send_keys(value)
        form.find_element(By.TAG_NAME, "button").click()

    def row_of(title: str) -> dict[str, Any]:
        rows = [row for row in s.cluster.rows() if row["title"] == title]
        if len(rows) != 1:
            raise Failure(f"the table has {len(rows)} rows titled {title!r}")
        return rows[0]

    fill("Added in the page", "Page", "4")
    added = wait_until(lambda: row_of("Added in the page"), WRITE_TIMEOUT, "the form's to-do is in the table")
    if (added["project"], added["priority"]) != ("Page", 4):
        raise Failure(f"the form wrote {added}")
    s.consistent("the form's POST")

    driver.find_element(By.CSS_SELECTOR, f"#sections li[data-id='{added['id']}'] button.up").click()
    wait_until(lambda: row_of("Added in the page")["priority"] == 3, WRITE_TIMEOUT, "▲ lowers the priority number")
    s.consistent("the ▲ button's PATCH")

    driver.find_element(By.CSS_SELECTOR, f"#sections li[data-id='{added['id']}'] button.delete").click()
    wait_until(lambda: not any(r["id"] == added["id"] for r in s.cluster.rows()), WRITE_TIMEOUT,
               "✕ deletes the to-do")
    s.consistent("the ✕ button's DELETE")

    fill("Too urgent", "Page", "3000000000")
    message = wait_until(lambda: driver.find_element(By.ID, "message").text, WRITE_TIMEOUT,
                         "the page shows the refused write's error")
    if not message.startswith("400"):
        raise Failure(f"the page shows {message!r} for a priority of 3e9, not a 400")
    if any(row["title"] == "Too urgent" for row in s.cluster.rows()):
        raise Failure("the refused write is in the table")

    fill("Not so urgent", "Page", "3")
    wait_until(lambda: row_of("Not so urgent"), WRITE_TIMEOUT, "the corrected to-do is in the table")
    s.consistent("the corrected form's POST")
    if (left := driver.find_element(By.ID, "message").text):
        raise Failure(f"the page still shows {left!r} after a write that succeeded")
    log(f"  form, ▲ and ✕ wrote through the page; a refused write showed {message!r}, cleared by the next")


def step_assignees(s: Scenario) -> None:
    """Each to-do's assignee: a person added through the page's form becomes a choice in every row, choosing
    them writes the to-do's assignee_id, and a rename through the API reaches the rows' choices live.
    """
    assert s.driver and s.cluster and s.api
    driver, cluster, api = s.driver, s.cluster, s.api
    form = driver.find_element(By.ID, "person")
    form.find_element(By.NAME, "name").send_keys("Ann Page")
    form.find_element(By.TAG_NAME, "button").click()
    person = int(wait_until(lambda: cluster.psql("SELECT id FROM people WHERE name = 'Ann Page'"), WRITE_TIMEOUT,
                            "the form's person is in the table"))
    todo = int(cluster.psql("SELECT id FROM todos WHERE title = 'Not so urgent'"))
    selector = f"#sections li[data-id='{todo}'] select.assignee"

    def choices() -> list[str]:
        return [option.text for option in Select(driver.find_element(By.CSS_SELECTOR, selector)).options]

    wait_until(lambda: "Ann Page" in choices(), WRITE_TIMEOUT, "the new person is a choice in the row")
    Select(driver.find_element(By.CSS_SELECTOR, selector)).select_by_visible_text("Ann Page")
    wait_until(lambda: cluster.psql(f"SELECT assignee_id FROM todos WHERE id = {todo}") == str(person),
               WRITE_TIMEOUT, "choosing the person writes the to-do's assignee_id")
    api.expect("PATCH", f"/people?id=eq.{person}", {"name": "Ann Renamed"}, 204)

    def shown() -> str:
        return Select(driver.find_element(By.CSS_SELECTOR, selector)).first_selected_option.text

    wait_until(lambda: shown() == "Ann Renamed", WRITE_TIMEOUT, "the rename reaches the row's chosen assignee")
    url = f"{api.base}/todos?select=title,assignee:people(name)&id=eq.{todo}"
    with urllib.request.urlopen(url, timeout=10) as response:  # PostgREST's rows: no Accept of the versioned form
        embedded = json.loads(response.read())
    if embedded != [{"title": "Not so urgent", "assignee": {"name": "Ann Renamed"}}]:
        raise Failure(f"GET with the assignee embedded answers {embedded}")
    log(f"  person {person} added in the page, chosen for to-do {todo}, renamed live: {shown()!r}")


def step_live_queries(s: Scenario) -> None:
    """The page's live query (the *LiveQueries* article): a project filter, an order and "show more", as a person uses them. Each
    view must equal `GET /todos` of the same query, stay live under writes, and grow by a page per click.
    """
    assert s.driver and s.cluster and s.api
    driver, api, cluster = s.driver, s.api, s.cluster
    cluster.psql("INSERT INTO todos (title, project, priority) "
                 "SELECT 'bulk ' || lpad(n::text, 3, '0'), 'Bulk', n % 5 FROM generate_series(1, 60) n")

    def shown() -> list[int]:
        return [id for _, rows in read_page(driver).sections for id, _, _ in rows]

    def served(query: str) -> list[int]:
        return [id for _, rows in sections_of_results(api.results(query)) for id, _, _ in rows]

    def expect_view(query: str, count: int, more: bool, what: str) -> None:
        def matches() -> bool:
            if driver.execute_script("return queryString()") != query:
                return False
            ids = served(query)
            more_shown = not driver.find_element(By.ID, "more").get_attribute("hidden")
            return len(ids) == count and shown() == ids and more_shown == more
        wait_until(matches, WRITE_TIMEOUT, f"{what}: the page shows GET /todos?{query} ({count} rows, "
                   f"'Show more' {'shown' if more else 'hidden'})")

    project = driver.find_element(By.ID, "project-filter")
    project.clear()
    project.send_keys("Bulk", Keys.TAB)  # a change event, as leaving the field makes
    expect_view("sections=project&project=eq.Bulk&limit=50", 50, True, "the project filter")
    if any(name != "Bulk" for name, _ in read_page(driver).sections):
        raise Failure("the filtered page shows another project")

    driver.find_element(By.ID, "more").click()
    expect_view("sections=project&project=eq.Bulk&limit=100", 60, False, "'Show more'")

    Select(driver.find_element(By.ID, "order")).select_by_value("title")
    expect_view("sections=project&project=eq.Bulk&order=title&limit=100", 60, False, "ordering by title")
    if [title for _, rows in read_page(driver).sections for _, title, _ in rows][:2] != ["bulk 001", "bulk 002"]:
        raise Failure("the page is not ordered by title")

    # Live under writes: a row leaves the filter, one is renamed to the front, one joins it.
    cluster.psql("UPDATE todos SET project = 'Elsewhere' WHERE title = 'bulk 010'; "
                 "UPDATE todos SET title = 'bulk 000' WHERE title = 'bulk 059'; "
                 "INSERT INTO todos (title, project, priority) VALUES ('bulk 061', 'Bulk', 1)")
    expect_view("sections=project&project=eq.Bulk&order=title&limit=100", 60, False, "writes to the filtered view")
    if read_page(driver).sections[0][1][0][1] != "bulk 000":
        raise Failure("the renamed row did not move to the front")

    # Back to every project, in the default order; the bulk rows go, so the next steps see the whole table.
    Select(driver.find_element(By.ID, "order")).select_by_value("")
    project.clear()
    project.send_keys(Keys.TAB)
    cluster.psql("DELETE FROM todos WHERE project IN ('Bulk', 'Elsewhere')")
    page, version = s.consistent("the view back to every project")
    log(f"  filter, 'Show more' and order followed GET of their queries; back to all at {version}")


def step_database_outage(s: Scenario) -> None:
    """PostgreSQL goes away and comes back while the server stays up.

    The server's stream says so (its `source` event), and the page must show "reconnecting to the database"
    meanwhile, then be live again with what was written straight into the table.
    """
    assert s.driver and s.cluster
    s.consistent("before the outage")
    s.cluster.stop_postmaster()
    wait_until(lambda: read_page(s.driver).state == "reconnecting to the database", 30,
               "the page shows 'reconnecting to the database'")
    log("  PostgreSQL stopped: the page shows 'reconnecting to the database'")
    s.cluster.start_postmaster()
    s.cluster.psql("INSERT INTO todos (title, project, priority) VALUES ('Written after the outage', 'Home', 0)")
    wait_until(lambda: read_page(s.driver).state == "live", RECONNECT_TIMEOUT, "the page is live again")
    page, _ = s.consistent("the outage", RECONNECT_TIMEOUT)
    if not any(title == "Written after the outage" for _, rows in page.sections for _, title, _ in rows):
        raise Failure("the write made after the outage does not show")
    log("  PostgreSQL back: the page is live again, with the write made straight into the table")


def step_restart(s: Scenario) -> None:
    """The server goes away and comes back on the same port over the same database.

    While it is down the page must say so, and a write made then (straight into the table: there is no
    server to write through) must show once the page is live again: the restarted server fetches the table,
    and the page, whose old version names the old process, gets the whole results.
    """
    assert s.driver and s.server and s.cluster
    port = s.port
    page_before, version_before = s.consistent("before the restart")
    started = time.monotonic()
    code = s.server.terminate()
    log(f"  SIGTERM: exit {code} after {time.monotonic() - started:.1f} s")
    if code != 0:
        raise Failure(f"the server exited {code} on SIGTERM, not 0{s.server.log_tail()}")
    s.server.kill()  # only closes its log: the process is gone
    state = wait_until(lambda: (lambda state: state if state != "live" else None)(read_page(s.driver).state),
                       10, "the page leaves 'live'")
    log(f"  the page shows {state!r}")
    s.cluster.psql("INSERT INTO todos (title, project, priority) VALUES ('Written while down', 'Home', 0)")
    # The page keeps trying to reconnect meanwhile: it must cope with refused connections, and never claim
    # to be live.
    states = [state]
    end = time.monotonic() + DOWNTIME
    while time.monotonic() < end:
        if (current := read_page(s.driver).state) != states[-1]:
            states.append(current)
        time.sleep(0.1)
    log(f"  states while down for {DOWNTIME:g} s: {' → '.join(states)}")
    if "live" in states:
        raise Failure("the page said 'live' while the server was down")
    s.start_server(port)
    log(f"  restarted on port {s.port}")
    wait_until(lambda: read_page(s.driver).state == "live", RECONNECT_TIMEOUT, "the page is live again")
    page, version = s.consistent("the restart", RECONNECT_TIMEOUT)
    if not any(title == "Written while down" for _, rows in page.sections for _, title, _ in rows):
        raise Failure("the write made while the server was down does not show")
    if version == version_before:
        raise Failure(f"the restarted server kept the version {version}")
    if page.token != page_before.token:
        raise Failure("the page was reloaded across the restart")
    log(f"  live again at version {version} (resyncs {page.resyncs}, updates {page.updates})")


def step_screenshot(s: Scenario) -> None:
    """A picture of the whole page as a person sees it, for review.

    Chromium's own capture (DevTools) takes the whole document, not just the window, so every section shows
    however many rows the scenario left.
    """
    assert s.driver
    path = OUTPUT / "page.png"
    time.sleep(1.5)  # lets the highlight of the last changed rows fade (1.2 s)
    size = s.driver.execute_cdp_cmd("Page.getLayoutMetrics", {})["cssContentSize"]
    shot = s.driver.execute_cdp_cmd("Page.captureScreenshot", {
        "format": "png", "captureBeyondViewport": True,
        "clip": {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}})
    path.write_bytes(base64.b64decode(shot["data"]))
    log(f"  screenshot: {path} ({size['width']:.0f}×{size['height']:.0f})")


def step_stop_server(s: Scenario) -> None:
    """The second run stops gracefully too, with the page connected (an open stream must not hold it up)."""
    assert s.server
    code = s.server.terminate()
    if code != 0:
        raise Failure(f"the restarted server exited {code} on SIGTERM, not 0{s.server.log_tail()}")


STEPS = [step_start_database, step_start_server, step_open_page, step_writes, step_untouched_row, step_burst,
         step_page_controls, step_assignees, step_live_queries, step_database_outage, step_restart, step_screenshot,
         step_stop_server]


# ---- Running --------------------------------------------------------------------------------------------


def on_deadline(signum: int, frame: Any) -> None:
    raise Stopped(f"the whole test took more than {DEADLINE} s")


def on_termination(signum: int, frame: Any) -> None:
    """SIGTERM (CI's, `timeout`'s or a person's) fails the step it interrupts, so the clean-up still runs."""
    raise Stopped(f"stopped by signal {signum}")


def main(argv: list[str]) -> int:
    binary = Path(argv[1]).resolve() if len(argv) > 1 else DEFAULT_BINARY
    OUTPUT.mkdir(parents=True, exist_ok=True)
    for stale in [OUTPUT / "page.png", OUTPUT / "failure.png", *OUTPUT.glob("server-*.log")]:
        stale.unlink(missing_ok=True)  # what an earlier run left would pass for this run's
    signal.signal(signal.SIGALRM, on_deadline)
    signal.signal(signal.SIGTERM, on_termination)
    signal.alarm(DEADLINE)
    scenario = Scenario(binary)
    passed = failed = 0
    started = time.monotonic()
    try:
        for step in STEPS:
            name = step.__name__.removeprefix("step_").replace("_", " ")
            log(f"{name} ...")
            step_started = time.monotonic()
            try:
                step(scenario)
            except Exception as error:  # noqa: BLE001 - any error fails the step and stops the run
                failed += 1
                log(f"FAIL {name}: {error}")
                if not isinstance(error, (Failure, Stopped)):
                    traceback.print_exc()
                save_failure_screenshot(scenario)
                break
            passed += 1
            log(f"ok   {name} ({time.monotonic() - step_started:.1f} s)")
    finally:
        # The clean-up is bounded by its own timeouts: neither the deadline nor another SIGTERM cuts it short.
        signal.alarm(0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        scenario.clean_up()
    skipped = len(STEPS) - passed - failed
    log(f"total {time.monotonic() - started:.1f} s")
    log(f"BrowserTests: {passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 and skipped == 0 else 1


def save_failure_screenshot(s: Scenario) -> None:
    """What the page looked like when a step failed, beside the server's logs."""
    if s.driver is None:
        return
    with contextlib.suppress(Exception):
        path = OUTPUT / "failure.png"
        s.driver.save_screenshot(str(path))
        log(f"  failure screenshot: {path}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
