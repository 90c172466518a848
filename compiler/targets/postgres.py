"""The PostgreSQL target: psycopg2 for loading, recording and the swap (the schemas renamed in one
transaction: readers see the old results or the new ones); an advisory lock per schema."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any, Callable

import duckdb

from ..errors import RunError
from ..run.locks import busy_error, utc_now, wait_loop
from ..run.record import RUNS_COLUMNS
from .warehouse import SCHEMA_SUFFIXES, Warehouse, WarehouseTarget, _export_select, _text_columns


class PostgresLock:
    """The run lock of a PostgreSQL target (compiler/run/locks.py): a session-level advisory lock
    keyed on the database schema (``pg_try_advisory_lock``), held by a connection of its own for
    the whole run; the server frees it when that connection ends. The connection's
    ``application_name`` carries the pid and start time for the message of a run that finds it
    taken."""

    def __init__(self, connect: Callable[[str], Any], schema: str) -> None:
        self.connect = connect
        self.schema = schema
        self.what = f"schema {schema} of target postgres"
        self.con: Any = None
        self.previous_owner = ""

    def _key_sql(self) -> str:
        return "hashtextextended('incentives run ' || %s, 0)"

    def acquire(self, wait: float | None = None) -> "PostgresLock":
        name = f"incentives run pid {os.getpid()}, started {utc_now()}"
        self.con = self.connect(name)
        self.con.autocommit = True

        def try_once() -> bool:
            with self.con.cursor() as cur:
                cur.execute(f"select pg_try_advisory_lock({self._key_sql()})", (self.schema,))
                return bool(cur.fetchone()[0])

        try:
            if not wait_loop(try_once, wait):
                raise busy_error(self.what, self.owner(), wait)
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


class Postgres(Warehouse):
    target = "postgres"

    def __init__(self, settings: dict[str, Any]) -> None:
        try:
            import psycopg2
        except ImportError:
            raise RunError("the postgres target needs dbt-postgres: pip install -e '.[postgres]'") from None
        options = {k: settings[k] for k in ("sslmode", "sslcert", "sslkey", "sslrootcert", "application_name")
                   if settings.get(k)}
        try:
            self.con = psycopg2.connect(
                host=settings.get("host"), port=settings.get("port", 5432), user=settings.get("user"),
                password=settings.get("password") or settings.get("pass"), dbname=settings.get("dbname") or settings.get("database"),
                connect_timeout=int(settings.get("connect_timeout") or 10), **options)
        except psycopg2.OperationalError as exc:
            raise RunError(f"cannot connect to PostgreSQL at {settings.get('host')}:{settings.get('port')} "
                           f"(target postgres of profiles/profiles.yml; scripts/start-postgres.sh starts a local "
                           f"server): {str(exc).strip()}") from None
        self.con.autocommit = True
        self._psycopg2 = psycopg2

    def execute(self, sql: str, params: Any = None) -> None:
        with self.con.cursor() as cur:
            cur.execute(sql, params)

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        with self.con.cursor() as cur:
            cur.execute(sql)
            return cur.fetchall()

    def fetch_dicts(self, sql: str) -> list[dict[str, Any]]:
        with self.con.cursor() as cur:
            cur.execute(sql)
            cols = [d[0] for d in cur.description]
            return [dict(zip(cols, r)) for r in cur.fetchall()]

    def schema_exists(self, schema: str) -> bool:
        with self.con.cursor() as cur:
            cur.execute("select 1 from information_schema.schemata where schema_name = %s", (schema,))
            return cur.fetchone() is not None

    def tables(self, schema: str) -> list[str]:
        with self.con.cursor() as cur:
            cur.execute("select table_name from information_schema.tables where table_schema = %s"
                        " and table_type = 'BASE TABLE' order by 1", (schema,))
            return [r[0] for r in cur.fetchall()]

    def drop_schema(self, schema: str) -> None:
        self.execute(f'drop schema if exists "{schema}" cascade')

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        columns = _text_columns(scratch, relation)
        ddl = ", ".join('"_row" bigint' if c == "_row" else f'"{c}" text' for c in columns)
        self.execute(f'create table "{schema}"."{name}" ({ddl})')
        with tempfile.TemporaryDirectory(prefix="incentives-pg-") as tmp:
            path = Path(tmp) / f"{name}.csv"
            # every non-null value quoted: an unquoted empty field is NULL to COPY, "" an empty text
            scratch.execute(f"copy ({_export_select(columns, relation)}) to '{path}' "
                            "(format csv, header false, force_quote *)")
            with open(path) as fh, self.con.cursor() as cur:
                cur.copy_expert(f'copy "{schema}"."{name}" from stdin with (format csv)', fh)

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        types = {"string": "text", "timestamp": "timestamp", "integer": "integer"}
        self.execute(f'create table "{schema}".runs ('
                     + ", ".join(f"{c} {types[t]}" for c, t in RUNS_COLUMNS) + ")")
        if history_from and "runs" in self.tables(history_from):
            try:
                self.execute(f'insert into "{schema}".runs select * from "{history_from}".runs')
            except self._psycopg2.Error:
                pass  # a runs table of another shape has no history to carry over
        self.execute(f'insert into "{schema}".runs values (' + ", ".join(["%s"] * len(row)) + ")", row)

    def carry_latest_run(self, from_schema: str, to_schema: str, name: str) -> None:
        """As on every warehouse, with an index on the live history's recorded_at (created once,
        then moved with the table): without it, PostgreSQL finds the latest run's rows by reading
        every earlier run's."""
        self.execute(f'create index if not exists "{name}_recorded_at" on "{from_schema}"."{name}" (recorded_at)')
        super().carry_latest_run(from_schema, to_schema, name)

    def swap(self, building: str, schema: str, run_id: str) -> None:
        """Drop the previous results and rename the building schemas over them, in one transaction.
        A live history table gains the run's rows and moves into the building schema in place of
        the build's (the previous run's rows and the run's): the run writes its own rows only."""
        history = self.appended_history(self.tables(schema), self.tables(building))
        self.con.autocommit = False
        try:
            for name in history:
                self.append_history(f'"{building}"', f'"{schema}"', name, run_id)
                self.execute(f'drop table "{building}"."{name}"')
                self.execute(f'alter table "{schema}"."{name}" set schema "{building}"')
            with self.con.cursor() as cur:
                for suffix in SCHEMA_SUFFIXES:
                    cur.execute(f'drop schema if exists "{schema}{suffix}" cascade')
                    cur.execute(f'alter schema "{building}{suffix}" rename to "{schema}{suffix}"')
            self.con.commit()
        except BaseException:
            self.con.rollback()
            raise
        finally:
            self.con.autocommit = True

    def close(self) -> None:
        self.con.close()


class PostgresTarget(WarehouseTarget):
    """`incentives run --target postgres`."""

    name = "postgres"
    adapter_type = "postgres"

    def connect(self) -> Postgres:
        return Postgres(self.settings)

    def lock(self) -> PostgresLock:
        """A session-level advisory lock on the schema, held by a connection of its own."""
        settings = self.settings
        return PostgresLock(lambda name: Postgres({**settings, "application_name": name}).con, str(settings["schema"]))

    def runs_threads(self, threads: int) -> int:
        return threads


TARGET = PostgresTarget
