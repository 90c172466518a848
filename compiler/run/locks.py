"""One run at a time per target: the run lock.

A run takes the lock of its target before it touches anything of it (the building file or
schemas, the rule folder) and holds it until the results are swapped in and its leftovers are
gone. A second run on the same target fails at once with who holds the lock, or waits for it
(`--wait SECONDS`). A lock is always released when its owner dies, however it dies (`kill -9`
included): the next run takes it over, and only then cleans up what the dead run left.

- DuckDB: ``FILE.duckdb.lock`` next to the database, locked with ``flock`` (the kernel releases
  it when the process ends); the owner writes its pid and start time into it, for the message
  of a run that finds it taken. The owner removes the file when it is done (a waiter that opened
  the removed file notices and opens the new one).
- Spark (``method: session``): the same file lock, ``<INCENTIVES_SPARK_DIR>/incentives-run.lock``.
  The metastore is an embedded Derby database, which only one process can open, so the lock is
  per metastore directory, whatever the schema.
- PostgreSQL: a session-level advisory lock keyed on the database schema
  (``pg_try_advisory_lock``), held by a connection of its own for the whole run; the server
  frees it when that connection ends. The connection's ``application_name`` carries the pid and
  start time for the message.
"""

from __future__ import annotations

import datetime as dt
import errno
import fcntl
import os
import time
from pathlib import Path
from typing import Any, Callable

from ..errors import RunError

POLL_SECONDS = 0.2


class RunInProgress(RunError):
    """Another run holds the lock of the target."""


def _now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def _busy(what: str, owner: str, wait: float | None) -> RunInProgress:
    owner = f" ({owner})" if owner else ""
    if wait:
        return RunInProgress(f"another run is still in progress on {what}{owner} after waiting {wait:g} seconds; "
                             "nothing was changed")
    return RunInProgress(f"another run is in progress on {what}{owner}; nothing was changed "
                         "(--wait SECONDS waits for it)")


def _wait_loop(try_once: Callable[[], bool], wait: float | None) -> bool:
    """Call `try_once` until it succeeds or `wait` seconds (None or 0: no waiting) have passed."""
    deadline = time.monotonic() + (wait or 0)
    while True:
        if try_once():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(POLL_SECONDS)


class FileLock:
    """An exclusive ``flock`` on `path`, with the owner's pid and start time written inside.

    `previous_owner` tells, once acquired, whether the file named an owner that is gone (a
    killed run: its lock file stays behind)."""

    def __init__(self, path: Path, what: str) -> None:
        self.path = path
        self.what = what
        self.fd: int | None = None
        self.previous_owner = ""

    def _try(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                return False
            raise
        try:  # the file may have been removed by its owner between our open and our flock
            same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return False
        self.previous_owner = os.pread(fd, 200, 0).decode(errors="replace").strip()
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {_now()}\n".encode(), 0)
        os.fsync(fd)
        self.fd = fd
        return True

    def owner(self) -> str:
        try:
            return self.path.read_text().strip()
        except OSError:
            return ""

    def acquire(self, wait: float | None = None) -> "FileLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not _wait_loop(self._try, wait):
            raise _busy(self.what, self.owner(), wait)
        return self

    def release(self) -> None:
        if self.fd is None:
            return
        try:  # removed while still held, so that no other run can lock the file being removed
            os.unlink(self.path)
        except FileNotFoundError:
            pass
        os.close(self.fd)
        self.fd = None

    def __enter__(self) -> "FileLock":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()


def duckdb_lock(database: Path) -> FileLock:
    """The lock of a DuckDB results file (`database` resolved)."""
    return FileLock(database.with_name(database.name + ".lock"), str(database))


class PostgresLock:
    """A session-level advisory lock on `schema`, held by its own connection (see the module)."""

    def __init__(self, connect: Callable[[str], Any], schema: str) -> None:
        self.connect = connect
        self.schema = schema
        self.what = f"schema {schema} of target postgres"
        self.con: Any = None
        self.previous_owner = ""

    def _key_sql(self) -> str:
        return "hashtextextended('incentives run ' || %s, 0)"

    def acquire(self, wait: float | None = None) -> "PostgresLock":
        name = f"incentives run pid {os.getpid()}, started {_now()}"
        self.con = self.connect(name)
        self.con.autocommit = True

        def try_once() -> bool:
            with self.con.cursor() as cur:
                cur.execute(f"select pg_try_advisory_lock({self._key_sql()})", (self.schema,))
                return bool(cur.fetchone()[0])

        try:
            if not _wait_loop(try_once, wait):
                raise _busy(self.what, self.owner(), wait)
        except BaseException:
            self.con.close()
            self.con = None
            raise
        return self

    def owner(self) -> str:
        """`pid N, started T` of the run holding the lock (from its connection's application_name)."""
        with self.con.cursor() as cur:
            cur.execute(
                "select a.application_name, a.backend_start from pg_locks l join pg_stat_activity a on a.pid = l.pid"
                f" where l.locktype = 'advisory' and l.granted and a.pid <> pg_backend_pid()"
                f" and (l.classid::bigint << 32) | l.objid::bigint = {self._key_sql()}", (self.schema,))
            row = cur.fetchone()
        if row is None:
            return ""
        name, started = row
        prefix = "incentives run "
        if name and name.startswith(prefix):
            return name[len(prefix):]
        return f"a session started {started:%Y-%m-%dT%H:%M:%S%z}" if started else ""

    def release(self) -> None:
        if self.con is not None:
            self.con.close()  # the server frees a session's advisory locks when it ends
            self.con = None

    def __enter__(self) -> "PostgresLock":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.release()
