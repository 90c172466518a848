"""One run at a time per target: the run lock.

A run takes the lock of its target before it touches anything of it (the building file or
schemas, the rule folder) and holds it until the results are swapped in and its leftovers are
gone. A second run on the same target fails at once with who holds the lock, or waits for it
(`--wait SECONDS`). A lock is always released when its owner dies, however it dies (`kill -9`
included): the next run takes it over, and only then cleans up what the dead run left.

- DuckDB: ``FILE.duckdb.lock`` next to the database, locked with ``flock`` (the kernel releases
  it when the process ends); the owner writes its pid and start time into it, for the message
  of a run that finds it taken (which reads it again for a few seconds while it is still empty:
  the owner writes just after it locks). The owner removes the file when it is done (a waiter
  that opened the removed file notices and opens the new one).
- Spark (``method: session``): the same file lock, ``<INCENTIVES_SPARK_DIR>/incentives-run.lock``.
  The metastore is an embedded Derby database, which only one process can open, so the lock is
  per metastore directory, whatever the schema.
- PostgreSQL: a session-level advisory lock keyed on the database schema, held by a connection
  of its own for the whole run (``PostgresLock`` in compiler/targets/postgres.py, with the
  helpers here).
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
OWNER_SECONDS = 5.0  # how long a refused run waits for the holder to have written its pid and start


class RunInProgress(RunError):
    """Another run holds the lock of the target."""


def utc_now() -> str:
    return dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def busy_error(what: str, owner: str, wait: float | None) -> RunInProgress:
    owner = f" ({owner})" if owner else ""
    if wait:
        return RunInProgress(f"another run is still in progress on {what}{owner} after waiting {wait:g} seconds; "
                             "nothing was changed")
    return RunInProgress(f"another run is in progress on {what}{owner}; nothing was changed "
                         "(--wait SECONDS waits for it)")


def wait_loop(try_once: Callable[[], bool], wait: float | None) -> bool:
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
        self.holder = ""

    def _try(self) -> bool:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            try:
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    self.holder = _written_owner(fd)
                    return False
                raise
            finally:
                os.close(fd)
        try:  # the file may have been removed by its owner between our open and our flock
            same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
        except FileNotFoundError:
            same = False
        if not same:
            os.close(fd)
            return False
        self.previous_owner = _owner_text(fd)
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"pid {os.getpid()}, started {utc_now()}\n".encode(), 0)
        os.fsync(fd)
        self.fd = fd
        return True

    def acquire(self, wait: float | None = None) -> "FileLock":
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not wait_loop(self._try, wait):
            raise busy_error(self.what, self.holder, wait)
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


def _written_owner(fd: int) -> str:
    """The pid and start time in the lock file `fd` (held by another run), once its holder has written them.

    The holder writes them right after it takes the lock, so a run refused in between (on a busy
    machine) reads an empty file: it reads again for up to OWNER_SECONDS."""
    deadline = time.monotonic() + OWNER_SECONDS
    while True:
        text = _owner_text(fd)
        if text.endswith("Z") or time.monotonic() >= deadline:
            return text
        time.sleep(0.02)


def _owner_text(fd: int) -> str:
    """What the lock file `fd` says of its owner (`pid N, started T`; empty before it is written)."""
    return os.pread(fd, 200, 0).decode(errors="replace").strip()


def duckdb_lock(database: Path) -> FileLock:
    """The lock of a DuckDB results file (`database` resolved)."""
    return FileLock(database.with_name(database.name + ".lock"), str(database))
