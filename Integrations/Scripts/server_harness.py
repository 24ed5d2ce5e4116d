"""What the integrations' Python checks share: a throwaway PostgreSQL cluster and a LiveResultsServer process,
both stopped on the way out even when the check is killed, and bounded waits.

Used by BrowserTests/test_page.py and Scripts/postgrest_client_check.py.
"""

from __future__ import annotations

import contextlib
import json
import os
import pwd
import re
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable

#: How long the server may take to exit after SIGTERM (seconds).
STOP_TIMEOUT = 20
#: How long the server may take to print its first line (seconds).
START_TIMEOUT = 30


class Failure(Exception):
    """A check that did not hold: its message says what was expected and what was seen."""


# ---- Small helpers --------------------------------------------------------------------------------------


def log(message: str) -> None:
    """Prints a progress line at once: CI shows where a run stopped even when it is killed."""
    print(message, flush=True)


def wait_until(condition: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Polls `condition` until it returns something truthy, and returns that.

    Every wait in this test is bounded: a page or server that never gets there fails the run with `what`
    (and the last exception `condition` raised, if any) instead of hanging it.
    """
    end = time.monotonic() + timeout
    last_error: BaseException | None = None
    while True:
        try:
            result = condition()
            if result:
                return result
            last_error = None
        except (Failure, OSError, ValueError) as error:
            last_error = error
        if time.monotonic() >= end:
            detail = f" (last: {last_error})" if last_error else ""
            raise Failure(f"timed out after {timeout:g} s waiting until {what}{detail}")
        time.sleep(interval)


def free_port() -> int:
    """A loopback port nobody listens on now (the system's choice), for PostgreSQL."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def dying_with_this_test(command: list[str], user: str | None = None) -> list[str]:
    """`command`, run (as `user`, if given) so that Linux kills it when this test dies, even by SIGKILL.

    Without it, a test killed by CI's timeout would leave a server holding its port, or a cluster. util-linux's
    setpriv does it (rather than a preexec_fn: code run between fork and exec can deadlock when threads
    exist), and changes the user in the same call: a later change of user would clear the death signal.
    """
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        if user is not None:
            return ["runuser", "-u", user, "--", *command]
        return command
    as_user = [f"--reuid={user}", f"--regid={user}", "--init-groups"] if user is not None else []
    return [setpriv, *as_user, "--pdeathsig", "KILL", "--", *command]


# ---- PostgreSQL -----------------------------------------------------------------------------------------


def postgres_bin() -> Path:
    """The newest installed PostgreSQL's bin folder (Debian installs /usr/lib/postgresql/<major>/bin)."""
    candidates = sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"), key=lambda p: int(p.parent.parent.name))
    if not candidates:
        raise Failure("no PostgreSQL server: apt-get install postgresql")
    return candidates[-1].parent


def sql_literal(text: str) -> str:
    """`text` as an SQL string literal (standard_conforming_strings is on: only quotes are doubled)."""
    return "'" + text.replace("'", "''") + "'"


class PostgresCluster:
    """A throwaway cluster in a temporary folder, listening on 127.0.0.1 only, with trust authentication.

    PostgreSQL refuses to run as root, so when this test is root the cluster runs as the `postgres` user, in
    a folder that user owns. The postmaster is this test's own child (not daemonized by pg_ctl), started
    through `setpriv --pdeathsig`, so even a test killed by SIGKILL leaves no cluster behind. `psql` connects
    over TCP as the `postgres` role and needs no such care.
    """

    def __init__(self, database: str = "liveresults_browser", settings: list[str] | None = None) -> None:
        self.bin = postgres_bin()
        self.port = free_port()
        self.database = database
        #: More `-c name=value` settings for the server (`wal_level=logical` for the change feed).
        self.settings = settings or []
        self.directory = Path(tempfile.mkdtemp(prefix="liveresults-browser-pg-"))
        self.data = self.directory / "data"
        self.log_path = self.directory / "postgres.log"
        self.postmaster: subprocess.Popen[bytes] | None = None

    def _as_owner(self, command: list[str]) -> list[str]:
        """`command` run as `postgres` when this test is root, dying with this test."""
        return dying_with_this_test(command, "postgres" if os.geteuid() == 0 else None)

    def start(self) -> None:
        if os.geteuid() == 0:
            entry = pwd.getpwnam("postgres")
            os.chown(self.directory, entry.pw_uid, entry.pw_gid)
        initdb = subprocess.run(
            self._as_owner([str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres", "--auth=trust",
                            "--encoding=UTF8", "--locale=C.UTF-8", "--no-sync"]),
            capture_output=True, text=True, timeout=60)
        if initdb.returncode != 0:
            raise Failure(f"initdb failed: {initdb.stderr or initdb.stdout}")
        self.start_postmaster()
        self.psql(f"CREATE DATABASE {self.database}", database="postgres")

    def start_postmaster(self) -> None:
        """Starts the server on the cluster's folder and port, and waits until it accepts connections."""
        # The socket goes to the cluster's own folder: /var/run/postgresql may not exist or be writable.
        # Durability is not wanted here, speed is.
        with open(self.log_path, "ab") as log_file:
            self.postmaster = subprocess.Popen(
                self._as_owner([str(self.bin / "postgres"), "-D", str(self.data), "-p", str(self.port),
                                "-c", "listen_addresses=127.0.0.1", "-k", str(self.directory),
                                "-c", "fsync=off", "-c", "full_page_writes=off", "-c", "synchronous_commit=off",
                                *[part for setting in self.settings for part in ("-c", setting)]]),
                stdin=subprocess.DEVNULL, stdout=log_file, stderr=subprocess.STDOUT)

        def ready() -> str | None:
            if self.postmaster is not None and self.postmaster.poll() is not None:
                return "exited"
            probe = subprocess.run([str(self.bin / "pg_isready"), "-q", "-h", "127.0.0.1", "-p", str(self.port)],
                                   timeout=10)
            return "ready" if probe.returncode == 0 else None

        if wait_until(ready, 30, "PostgreSQL accepts connections", interval=0.1) == "exited":
            raise Failure(f"PostgreSQL exited ({self.postmaster.returncode}){self.log_tail()}")

    def stop_postmaster(self) -> None:
        """Stops the server (fast shutdown, SIGINT: sessions are ended), keeping the cluster's folder."""
        assert self.postmaster is not None
        self.postmaster.send_signal(signal.SIGINT)
        self.postmaster.wait(30)

    @property
    def url(self) -> str:
        return f"postgres://postgres@127.0.0.1:{self.port}/{self.database}"

    def psql(self, sql: str, database: str | None = None) -> str:
        """Runs `sql` (one or more statements, one transaction only if it says BEGIN) and returns its output."""
        command = [str(self.bin / "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                   "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", "-d", database or self.database,
                   "-c", sql]
        result = subprocess.run(command, capture_output=True, text=True, timeout=30)
        if result.returncode != 0:
            raise Failure(f"psql failed on {sql!r}: {result.stderr.strip()}")
        return result.stdout.strip()

    def rows(self) -> list[dict[str, Any]]:
        """The table's rows, read with psql: what every view must come to show."""
        text = self.psql("SELECT coalesce(json_agg(t ORDER BY id), '[]') FROM todos t")
        return json.loads(text)

    def log_tail(self) -> str:
        with contextlib.suppress(OSError):
            return "\n--- PostgreSQL log ---\n" + "\n".join(self.log_path.read_text().splitlines()[-20:])
        return ""

    def stop(self) -> None:
        """Stops the cluster (immediate shutdown, SIGQUIT: its data is thrown away) and removes its folder."""
        if self.postmaster is not None and self.postmaster.poll() is None:
            self.postmaster.send_signal(signal.SIGQUIT)
            try:
                self.postmaster.wait(30)
            except subprocess.TimeoutExpired:
                self.postmaster.kill()
                self.postmaster.wait(10)
        shutil.rmtree(self.directory, ignore_errors=True)


# ---- The server -----------------------------------------------------------------------------------------


class Server:
    """One run of the server example (LiveResultsServer or LiveResultsVaporServer): started, its port read from
    its first line, stopped with SIGTERM.

    Its standard output is read by a thread for as long as it runs (a pipe nobody reads would block the
    server once full) and, with its standard error, saved to .build-browser/server-N.log for a failure's
    post-mortem.
    """

    def __init__(self, binary: Path, database_url: str, port: int, log_path: Path,
                 arguments: list[str] | None = None) -> None:
        self.log_path = log_path
        self.log_file = open(log_path, "w")
        self.announced = threading.Event()
        self.port: int | None = None
        self.process = subprocess.Popen(
            dying_with_this_test([str(binary), "--port", str(port), "--host", "127.0.0.1",
                                  "--postgres", database_url, *(arguments or [])]),
            stdout=subprocess.PIPE, stderr=self.log_file, stdin=subprocess.DEVNULL, text=True)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        # Each executable starts the line with its own name.
        announcement = re.compile(r"^\w+: to-dos in PostgreSQL, open http://127\.0\.0\.1:(\d+)/$")
        for line in self.process.stdout:
            self.log_file.write(line)
            self.log_file.flush()
            if not self.announced.is_set() and (match := announcement.match(line.strip())):
                self.port = int(match.group(1))
                self.announced.set()

    def wait_until_running(self) -> int:
        """The port the server said it listens on; fails if it exits or says nothing in time."""
        end = time.monotonic() + START_TIMEOUT
        while not self.announced.wait(0.1):
            if self.process.poll() is not None:
                # 64: swift-argument-parser refused the command line (its error and usage are in the log).
                refused = ", its command line refused" if self.process.returncode == 64 else ""
                raise Failure(f"the server exited ({self.process.returncode}{refused}) before running{self.log_tail()}")
            if time.monotonic() > end:
                raise Failure(f"the server said nothing in {START_TIMEOUT} s{self.log_tail()}")
        if not self.port:
            raise Failure(f"the server's first line has no port{self.log_tail()}")
        return self.port

    def terminate(self) -> int:
        """SIGTERM, then the exit code (fails if the server takes longer than STOP_TIMEOUT)."""
        self.process.send_signal(signal.SIGTERM)
        try:
            return self.process.wait(STOP_TIMEOUT)
        except subprocess.TimeoutExpired:
            raise Failure(f"the server did not exit within {STOP_TIMEOUT} s of SIGTERM{self.log_tail()}") from None

    def kill(self) -> None:
        """For the way out: whatever state the server is in, it is gone afterwards."""
        if self.process.poll() is None:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        self.reader.join(5)
        self.log_file.close()

    def log_tail(self) -> str:
        self.log_file.flush()
        with contextlib.suppress(OSError):
            return "\n--- server log ---\n" + "\n".join(self.log_path.read_text().splitlines()[-30:])
        return ""
