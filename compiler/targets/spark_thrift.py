"""The Spark Thrift server target (dbt-spark's thrift method, PyHive)."""

from __future__ import annotations

import datetime as dt
import os
import re
import tempfile
from pathlib import Path
from typing import Any

import duckdb

from ..errors import RunError
from ..run.build import add_filter_once
from ..run.record import RUNS_COLUMNS
from .spark import Spark, SparkTarget, _keep_profile_ansi_mode, _Py4jRootRecords
from .warehouse import Warehouse, _export_select, _text_columns, _text_ddl


def _poll_quickly() -> None:
    """dbt-spark's thrift connection sleeps `poll_interval` seconds (an integer, at least 1) before
    each look at a running statement, though most statements here take a fraction of a second. In
    this process it looks after 0.05 s, then twice as long each time, up to the profile's interval."""
    try:
        from dbt.adapters.spark.connections import PyhiveConnectionWrapper
    except ImportError:
        return
    if getattr(PyhiveConnectionWrapper, "_incentives_polls_quickly", False):
        return
    original = PyhiveConnectionWrapper._execute_with_polling

    def _execute_with_polling(self: Any, sql: str, bindings: Any) -> None:
        self._incentives_next_poll = 0.05
        return original(self, sql, bindings)

    def get_interval(self: Any) -> float:
        longest = self._incentives_poll_interval
        step = min(getattr(self, "_incentives_next_poll", longest), longest)
        self._incentives_next_poll = step * 2
        return step

    def set_interval(self: Any, value: float) -> None:
        self._incentives_poll_interval = value

    PyhiveConnectionWrapper.poll_interval = property(get_interval, set_interval)  # type: ignore[assignment]
    PyhiveConnectionWrapper._execute_with_polling = _execute_with_polling  # type: ignore[method-assign]
    PyhiveConnectionWrapper._incentives_polls_quickly = True  # type: ignore[attr-defined]


class SparkThrift(Spark):
    """A Spark Thrift server (dbt-spark's thrift method): the connection is the one dbt-spark opens
    for the profile (PyHive; the same host, port, user, authentication and session settings).

    Tables are copied as Parquet files the server reads in place (external tables) when it
    shares this machine's files (a server on 127.0.0.1, or
    INCENTIVES_SPARK_THRIFT_SHARED_DIR: a folder both see under the same path); otherwise, and for
    small tables, with `insert ... values` statements."""

    target = "spark_thrift"
    VALUES_ROWS = 500  # up to this many rows (the rule tables): insert ... values
    BATCH_CHARS = 500_000  # one insert statement's size

    def __init__(self, settings: dict[str, Any]) -> None:
        try:
            from dbt.adapters.contracts.connection import Connection, ConnectionState
            from dbt.adapters.spark.connections import SparkConnectionManager, SparkCredentials
            import pyhive  # noqa: F401
        except ImportError:
            raise RunError("the spark_thrift target needs dbt-spark[PyHive]: pip install -e '.[spark_thrift]'") from None
        if settings.get("method") != "thrift":
            raise RunError(f"target spark_thrift of profiles/profiles.yml must use method thrift, not "
                           f"{settings.get('method')!r}")
        _keep_profile_ansi_mode()
        _poll_quickly()
        fields = {k: v for k, v in settings.items() if k not in ("type", "threads")}
        where = f"{settings.get('host')}:{settings.get('port')}"
        try:
            credentials = SparkCredentials.from_dict(fields)
            connection = Connection(type="spark", name="incentives", credentials=credentials,
                                    state=ConnectionState.INIT, transaction_open=False, handle=None)
            self.handle = SparkConnectionManager.open(connection).handle
        except Exception as exc:  # dbt's FailedToConnectError carries the reason
            raise RunError(f"cannot connect to the Spark Thrift server at {where} (target spark_thrift of "
                           f"profiles/profiles.yml; scripts/start-spark-cluster.sh starts a local one): "
                           f"{_first_line(exc)}") from None
        self.where = where
        shared = os.environ.get("INCENTIVES_SPARK_THRIFT_SHARED_DIR")
        loopback = str(settings.get("host")) in ("127.0.0.1", "localhost", "::1")
        self.shared_dir: Path | None = Path(shared) if shared else (Path(tempfile.gettempdir()) if loopback else None)
        add_filter_once("", _Py4jRootRecords)

    def _cursor(self, sql: str) -> Any:
        cursor = self.handle.cursor()
        try:
            cursor.execute(sql)
        except Exception as exc:
            raise RunError(f"the Spark Thrift server at {self.where} refused a statement: {_first_line(exc)}\n"
                           f"  statement: {sql[:300]}") from None
        return cursor

    def execute(self, sql: str) -> None:
        self._cursor(sql)

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        cursor = self._cursor(sql)
        dates = [i for i, d in enumerate(cursor.description or ()) if d[1] == "DATE_TYPE"]
        rows = cursor.fetchall()
        if not dates:
            return [tuple(r) for r in rows]
        out = []
        for row in rows:
            values = list(row)
            for i in dates:  # PyHive gives dates as text
                if values[i] is not None:
                    values[i] = dt.date.fromisoformat(values[i])
            out.append(tuple(values))
        return out

    def fetch_dicts(self, sql: str) -> list[dict[str, Any]]:
        cursor = self._cursor(sql)
        columns = [d[0].split(".")[-1] for d in cursor.description]
        rows = self.fetch(sql) if any(d[1] == "DATE_TYPE" for d in cursor.description) else cursor.fetchall()
        return [dict(zip(columns, r)) for r in rows]

    def schema_exists(self, schema: str) -> bool:
        return schema.lower() in {r[0].lower() for r in self.fetch("show databases")}

    def tables(self, schema: str) -> list[str]:
        if not self.schema_exists(schema):
            return []
        views = {r[1] for r in self.fetch(f"show views in {schema}")}
        return sorted(r[1] for r in self.fetch(f"show tables in {schema}") if r[1] not in views and not r[2])

    def shares_files(self) -> bool:
        return self.shared_dir is not None

    def staged(self, schema: str) -> Path | None:
        """Where the external tables of `schema` keep their files, when the server shares this
        machine's files; else None (the tables are the server's own)."""
        return None if self.shared_dir is None else self.shared_dir / "incentives-staged" / schema

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        """Spark's external table over a Parquet file DuckDB writes (Spark.copy_from_duckdb, in
        staged(): copying it into a table of the server's was a job that read and wrote every
        row); without shared files, and for small tables, `insert ... values` statements."""
        if self.staged(schema) is not None and scratch.execute(f"select count(*) from {relation}").fetchone()[0] > self.VALUES_ROWS:
            super().copy_from_duckdb(scratch, relation, schema, name)
            return
        columns = _text_columns(scratch, relation)
        select = _export_select(columns, relation)
        self.execute(f"create table {schema}.{name} ({_text_ddl(columns)}) using parquet")
        cursor = scratch.execute(select)
        batch: list[str] = []
        size = 0
        while True:
            chunk = cursor.fetchmany(10_000)
            for row in chunk:
                text = "(" + ", ".join(_spark_literal(v) for v in row) + ")"
                batch.append(text)
                size += len(text)
                if size >= self.BATCH_CHARS:
                    self.execute(f"insert into {schema}.{name} values " + ", ".join(batch))
                    batch, size = [], 0
            if not chunk:
                break
        if batch:
            self.execute(f"insert into {schema}.{name} values " + ", ".join(batch))

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        ddl = ", ".join(f"{c} {'timestamp_ntz' if t == 'timestamp' else t}" for c, t in RUNS_COLUMNS)
        self.execute(f"create table if not exists {schema}.runs ({ddl}) using parquet")
        self.execute(f"insert into {schema}.runs values (" + ", ".join(_spark_literal(v) for v in row) + ")")

    def close(self) -> None:
        try:
            self.handle.close()
        except Exception:  # closing a broken connection: nothing to keep
            pass


def _first_line(exc: BaseException) -> str:
    """The server's own message of a dbt / PyHive error (not the Thrift structures around it)."""
    text = str(exc)
    match = re.search(r"errorMessage='((?:[^'\\]|\\.)*)'", text)
    if match:
        text = match.group(1).encode().decode("unicode_escape", errors="replace")
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if len(lines) > 1 and lines[0] in ("Database Error", "Runtime Error"):  # dbt's heading
        lines = lines[1:]
    return lines[0] if lines else type(exc).__name__


def _spark_literal(value: Any) -> str:
    """A Spark SQL literal (strings: backslash escapes, Spark's default)."""
    if value is None:
        return "NULL"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, dt.datetime):
        return f"timestamp_ntz'{value.isoformat(sep=' ')}'"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


class SparkThriftTarget(SparkTarget):
    """`incentives run --target spark_thrift`: the same run lock as the spark target."""

    name = "spark_thrift"
    adapter_type = "spark"
    parquet_tables = False

    @classmethod
    def prepare_environment(cls) -> None:
        pass

    def connect(self) -> Warehouse:
        return SparkThrift(self.settings)


TARGET = SparkThriftTarget
