"""PostgreSQL and Spark: `incentives run --target postgres|spark|spark_thrift` and `incentives compile --target ...`.

The pipeline is the DuckDB one (compiler/runner.py) with another warehouse at the end:

1. compile the programs into rule CSVs; load the input files into a scratch in-memory DuckDB and
   validate them there (the same readers and checks as a DuckDB run, so every engine sees the same
   text and the same NULLs);
2. copy the raw tables and the rule tables into the target, into fresh schemas
   `<schema>__building_raw` and `<schema>__building_rules` (PostgreSQL: COPY through psycopg2;
   Spark: Parquet written by DuckDB, read by the SparkSession and saved as tables; a Spark Thrift
   server: SQL through dbt-spark's connection, Parquet files when the server shares this machine's
   files, else `insert ... values`);
3. `dbt build --target <target>` in-process into `<schema>__building` (+ `_internal`): the var
   `build_schema` (macros/generate_schema_name.sql), with `input_schema` pointing at the copied
   inputs and the rule tables where the seeds go (`<build schema>_rules`), the seeds left out;
4. record the run in `runs` and swap the new results in. PostgreSQL renames the schemas in one
   transaction (atomic: readers see the old results or the new ones); Spark has no schema rename,
   so each result table is copied next to the live one and renamed over it (a reader may find a
   table missing for the instant between two renames; a failed build leaves everything as it was).

Connection settings come from the `incentives` profile (profiles/profiles.yml) as dbt renders it,
environment variables included, so this module and dbt always talk to the same database.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any, Iterable

import duckdb

from ..errors import RunError
from ..pipeline.runner import (PROJECT_DIR, REJECTED_TABLES, RESULT_TABLES, RUN_CONTEXT, PhaseTimer, RunInputs, Say, Summary,
                     _say, add_filter_once, build_selection, compile_alongside, load_and_validate,
                     rejected_tables_sql, load_rule_tables, run_context_sql, run_dbt, run_vars,
                     stage_rejected_programs, summarize_with)

TARGETS = ("duckdb", "postgres", "spark", "spark_thrift")
# the adapter type each target of the profile must have
TARGET_TYPES = {"duckdb": "duckdb", "postgres": "postgres", "spark": "spark", "spark_thrift": "spark"}
SPARK_TARGETS = ("spark", "spark_thrift")
PROFILE_NAME = "incentives"
PROFILES_DIR = PROJECT_DIR / "profiles"
# the schemas one run owns, as suffixes of the target's schema: results, dbt's internal models,
# the loaded inputs and the loaded rule tables
SCHEMA_SUFFIXES = ("", "_internal", "_raw", "_rules")
BUILDING = "__building"
RUNS_COLUMNS = (("run_id", "string"), ("started_at", "timestamp"), ("finished_at", "timestamp"),
                ("project_version", "string"), ("programs_sha256", "string"), ("inputs_sha256", "string"),
                ("row_counts", "string"), ("threads", "integer"))
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --------------------------------------------------------------------------- profile


def spark_dir() -> Path:
    """INCENTIVES_SPARK_DIR (default ./spark) made absolute, so Spark and Derby agree on it."""
    path = Path(os.environ.get("INCENTIVES_SPARK_DIR") or "spark").resolve()
    os.environ["INCENTIVES_SPARK_DIR"] = str(path)
    return path


def target_settings(target: str) -> dict[str, Any]:
    """The `target` output of the incentives profile, rendered by dbt (env_var() applied)."""
    from dbt.config.profile import Profile, read_profile
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    if target == "spark":
        spark_dir()
    set_invocation_context(os.environ)
    try:
        raw = read_profile(str(PROFILES_DIR))
        _, settings = Profile.render_profile(raw[PROFILE_NAME], PROFILE_NAME, target, ProfileRenderer({}))
    except Exception as exc:  # dbt's errors (unknown target, bad YAML) carry the explanation
        raise RunError(f"cannot read target {target!r} of profiles/profiles.yml: {exc}") from None
    if settings.get("type") != TARGET_TYPES.get(target, target):
        raise RunError(f"target {target!r} of profiles/profiles.yml has type {settings.get('type')!r}")
    schema = str(settings.get("schema") or "")
    if not _IDENTIFIER.match(schema):
        raise RunError(f"target {target!r}: schema {schema!r} must be a plain identifier (letters, digits, _)")
    return settings


# --------------------------------------------------------------------------- warehouses


class Warehouse:
    """A connection to the target engine: SQL, and tables copied from the scratch DuckDB."""

    target = ""

    def execute(self, sql: str) -> None:
        raise NotImplementedError

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        raise NotImplementedError

    def fetch_dicts(self, sql: str) -> list[dict[str, Any]]:
        raise NotImplementedError

    def schema_exists(self, schema: str) -> bool:
        raise NotImplementedError

    def tables(self, schema: str) -> list[str]:
        raise NotImplementedError

    def drop_schema(self, schema: str) -> None:
        raise NotImplementedError

    def create_schema(self, schema: str) -> None:
        self.execute(f"create schema if not exists {schema}")

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        """Create `schema.name` with the rows of the scratch DuckDB's `relation`: `_row` stays a
        bigint, every other column is text (the staging models cast them)."""
        raise NotImplementedError

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        raise NotImplementedError

    def swap(self, building: str, schema: str) -> None:
        raise NotImplementedError

    def close(self) -> None:
        pass


def _text_columns(scratch: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [r[0] for r in scratch.execute(f"describe select * from {relation}").fetchall()]


def _export_select(columns: Iterable[str], relation: str) -> str:
    cols = ", ".join('"_row"' if c == "_row" else f'cast("{c}" as varchar) as "{c}"' for c in columns)
    return f"select {cols} from {relation}"


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

    def swap(self, building: str, schema: str) -> None:
        """Drop the previous results and rename the building schemas over them, in one transaction."""
        self.con.autocommit = False
        try:
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


def _keep_profile_ansi_mode() -> None:
    """dbt-spark 1.11 overwrites `spark.sql.ansi.enabled` with false in every profile and sets it on
    every statement it runs. Keep the profile's value instead (in this process): ANSI mode makes a
    decimal overflow or a bad cast fail the build rather than return NULL."""
    try:
        from dbt.adapters.spark.connections import SparkCredentials
    except ImportError:
        return
    original = SparkCredentials.__post_init__
    if getattr(original, "_incentives_keeps_ansi", False):
        return

    def __post_init__(self: Any) -> None:
        wanted = {str(k): str(v) for k, v in (self.server_side_parameters or {}).items()}.get("spark.sql.ansi.enabled")
        original(self)
        if wanted is not None:
            self.server_side_parameters["spark.sql.ansi.enabled"] = wanted

    __post_init__._incentives_keeps_ansi = True  # type: ignore[attr-defined]
    SparkCredentials.__post_init__ = __post_init__  # type: ignore[method-assign]


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


def spark_session(settings: dict[str, Any]) -> Any:
    """The process' SparkSession with the profile's `server_side_parameters` (the one dbt-spark's
    session method then uses too). Local mode; the jars come with the pyspark wheel."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise RunError("the spark target needs dbt-spark[session] and pyspark: pip install -e '.[spark]'") from None
    if settings.get("method") != "session":
        raise RunError(f"`incentives run --target spark` runs Spark in this process (method: session); "
                       f"this profile uses method {settings.get('method')!r}: load the inputs yourself and run "
                       "`dbt build` (README, Spark)")
    if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
        raise RunError("the spark target needs Java 17 or newer (scripts/ensure-java.sh installs Debian's)")
    _keep_profile_ansi_mode()
    builder = SparkSession.builder.enableHiveSupport()
    for key, value in (settings.get("server_side_parameters") or {}).items():
        builder = builder.config(str(key), str(value))
    session = builder.getOrCreate()
    level = (settings.get("server_side_parameters") or {}).get("spark.log.level")
    if level:
        session.sparkContext.setLogLevel(str(level))
    return session


class _Py4jRootRecords(logging.Filter):
    """Drops what py4j logs through the root logger (its own loggers, named py4j.*, are kept)."""

    def filter(self, record: logging.LogRecord) -> bool:
        return f"{os.sep}py4j{os.sep}" not in record.pathname


class Spark(Warehouse):
    target = "spark"

    def __init__(self, settings: dict[str, Any]) -> None:
        self.session = spark_session(settings)
        # py4j reports a Ctrl-C during a call to the JVM (and pyspark's failed attempt to cancel
        # the jobs from inside that call) with tracebacks through the root logger; the command
        # says it was interrupted
        add_filter_once("", _Py4jRootRecords)

    def execute(self, sql: str) -> None:
        self.session.sql(sql).collect()

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self.session.sql(sql).collect()]

    def fetch_dicts(self, sql: str) -> list[dict[str, Any]]:
        return [r.asDict() for r in self.session.sql(sql).collect()]

    def schema_exists(self, schema: str) -> bool:
        return bool(self.session.catalog.databaseExists(schema))

    def tables(self, schema: str) -> list[str]:
        if not self.schema_exists(schema):
            return []
        return sorted(t.name for t in self.session.catalog.listTables(schema) if t.tableType != "VIEW")

    def drop_schema(self, schema: str) -> None:
        self.execute(f"drop database if exists {schema} cascade")

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        columns = _text_columns(scratch, relation)
        with tempfile.TemporaryDirectory(prefix="incentives-spark-") as tmp:
            path = Path(tmp) / f"{name}.parquet"
            scratch.execute(f"copy ({_export_select(columns, relation)}) to '{path}' (format parquet)")
            frame = self.session.read.parquet(str(path))
            frame.write.format("parquet").mode("overwrite").saveAsTable(f"{schema}.{name}")

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        from pyspark.sql.types import IntegerType, StringType, StructField, StructType, TimestampNTZType

        types = {"string": StringType(), "timestamp": TimestampNTZType(), "integer": IntegerType()}
        ddl = ", ".join(f"{c} {'timestamp_ntz' if t == 'timestamp' else t}" for c, t in RUNS_COLUMNS)
        self.execute(f"create table if not exists {schema}.runs ({ddl}) using parquet")
        frame = self.session.createDataFrame([row], StructType([StructField(c, types[t]) for c, t in RUNS_COLUMNS]))
        frame.write.insertInto(f"{schema}.runs")

    def swap(self, building: str, schema: str) -> None:
        """Copy each result table next to the live one, then rename it over the live one."""
        self.create_schema(schema)
        tables = self.tables(building)
        for table in tables:
            self.execute(f"drop table if exists {schema}.{table}__new")
            self.execute(f"create table {schema}.{table}__new using parquet as select * from {building}.{table}")
        live = set(self.tables(schema))
        for table in tables:
            self.execute(f"drop table if exists {schema}.{table}__old")
            if table in live:
                self.execute(f"alter table {schema}.{table} rename to {schema}.{table}__old")
            self.execute(f"alter table {schema}.{table}__new rename to {schema}.{table}")
        for table in tables:
            self.execute(f"drop table if exists {schema}.{table}__old")
        for suffix in SCHEMA_SUFFIXES:
            self.drop_schema(f"{building}{suffix}")


class SparkThrift(Spark):
    """A Spark Thrift server (dbt-spark's thrift method): the connection is the one dbt-spark opens
    for the profile (PyHive; the same host, port, user, authentication and session settings).

    Tables are copied as Parquet files the server reads (`create table ... as select * from
    parquet.`file``) when it shares this machine's files (a server on 127.0.0.1, or
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

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        columns = _text_columns(scratch, relation)
        select = _export_select(columns, relation)
        rows = scratch.execute(f"select count(*) from {relation}").fetchone()[0]
        if self.shared_dir is not None and rows > self.VALUES_ROWS:
            self.shared_dir.mkdir(parents=True, exist_ok=True)
            with tempfile.TemporaryDirectory(prefix="incentives-thrift-", dir=self.shared_dir) as tmp:
                path = Path(tmp) / f"{name}.parquet"
                scratch.execute(f"copy ({select}) to '{path}' (format parquet)")
                os.chmod(tmp, 0o755)
                self.execute(f"create table {schema}.{name} using parquet as select * from parquet.`file://{path}`")
            return
        ddl = ", ".join(f"`{c}` {'bigint' if c == '_row' else 'string'}" for c in columns)
        self.execute(f"create table {schema}.{name} ({ddl}) using parquet")
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


def connect(target: str, settings: dict[str, Any] | None = None) -> Warehouse:
    """A connection to `target` of the profile (postgres, spark or spark_thrift)."""
    if target not in ("postgres", "spark", "spark_thrift"):
        raise RunError(f"unknown target {target!r}; one of {', '.join(TARGETS)}")
    settings = settings or target_settings(target)
    if target == "postgres":
        return Postgres(settings)
    return Spark(settings) if target == "spark" else SparkThrift(settings)


# --------------------------------------------------------------------------- rules


def load_rule_csvs(scratch: duckdb.DuckDBPyConnection, rules_dir: Path, schema: str = "rules") -> list[str]:
    """Read the compiled rule CSVs (the seeds) into the scratch DuckDB as text, to copy them to the
    target exactly as written (the staging models cast them)."""
    return load_rule_tables(scratch, rules_dir, schema, typed=False)


# --------------------------------------------------------------------------- run


def run_lock(target: str, settings: dict[str, Any]) -> Any:
    """The run lock of `target` (compiler/locks.py): an advisory lock on the schema (PostgreSQL), a
    file lock on the metastore directory (Spark in this process: its Derby metastore admits one
    process at a time)."""
    from ..pipeline.locks import FileLock, PostgresLock

    schema = str(settings["schema"])
    if target == "postgres":
        return PostgresLock(lambda name: Postgres({**settings, "application_name": name}).con, schema)
    directory = spark_dir()
    return FileLock(directory / "incentives-run.lock", f"the Spark metastore {directory} (schema {schema})")


def run_target(target: str, programs: Path, data_dir: Path, say: Say = _say, threads: int = 1,
               unit_tests: bool = False, wait: float | None = None, skip_invalid_programs: bool = False,
               skip_invalid_rows: bool = False) -> Summary:
    """`incentives run --target postgres|spark`: compile, validate, load, build, swap in, holding
    the target's run lock throughout (`wait`: seconds to wait for another run's lock; the skip
    options as in runner.run)."""
    settings = target_settings(target)
    with run_lock(target, settings).acquire(wait):
        return _run_target_locked(target, settings, programs, data_dir, say, threads, unit_tests,
                                  skip_invalid_programs, skip_invalid_rows)


def _run_target_locked(target: str, settings: dict[str, Any], programs: Path, data_dir: Path, say: Say,
                       threads: int, unit_tests: bool, skip_invalid_programs: bool,
                       skip_invalid_rows: bool) -> Summary:
    started_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    phase = PhaseTimer()

    schema = str(settings["schema"])
    building = schema + BUILDING
    work = Path(tempfile.mkdtemp(prefix="incentives-run-"))
    scratch = duckdb.connect()
    warehouse: Warehouse | None = None
    swapped = False
    try:
        rules_dir = work / "rules"
        say(f"Compiling {programs}")
        say(f"Loading {data_dir} (validated in DuckDB)")
        (counts, sources), rejected = compile_alongside(
            programs, rules_dir, say, phase, "validate",
            lambda: load_and_validate(scratch, data_dir, skip_invalid_rows), skip_invalid_programs)
        stage_rejected_programs(scratch, rejected)
        rule_names = load_rule_csvs(scratch, rules_dir)
        phase("read rules")
        say(f"  {', '.join(f'{name} {n:,}' for name, n in counts.items())}")

        say(f"Loading into {target} (schemas {building}_raw, {building}_rules)")
        warehouse = connect(target, settings)
        for suffix in SCHEMA_SUFFIXES:  # what a failed or killed earlier run left
            warehouse.drop_schema(building + suffix)
        for suffix in ("_raw", "_rules"):
            warehouse.create_schema(building + suffix)
        for name in (*counts, *REJECTED_TABLES):
            warehouse.copy_from_duckdb(scratch, f"raw.{name}", building + "_raw", name)
        for name in rule_names:
            warehouse.copy_from_duckdb(scratch, f"rules.{name}", building + "_rules", name)
        phase("load")

        inputs = RunInputs.of(programs, {name: src.path for name, src in sources.items()})
        run_id = inputs.run_id(started_at)
        scratch.execute(run_context_sql(run_id))
        warehouse.copy_from_duckdb(scratch, f"raw.{RUN_CONTEXT}", building + "_raw", RUN_CONTEXT)
        say(f"  run id {run_id}")
        say(f"Building (dbt build --target {target}) into {building}")
        # the same vars on every run (the run id is in run_context), so dbt reuses its partial parse
        dbt_vars = run_vars(unit_tests, build_schema=building, input_schema=building + "_raw")
        # the rule tables are where dbt's seeds go (<build schema>_rules): the seeds are left out
        args = ["build", "--target", target, "--vars", json.dumps(dbt_vars), *build_selection(unit_tests)]
        run_dbt(args, None, say, threads)
        phase("build")

        for sql in rejected_tables_sql(building, building + "_raw", spark=target == "spark"):
            warehouse.execute(sql)
        row_counts = dict(counts)
        for table in (*RESULT_TABLES, "run_warnings", *REJECTED_TABLES):
            row_counts[table] = int(warehouse.fetch(f"select count(*) from {building}.{table}")[0][0])
        summary = summarize_with(warehouse.fetch, building, building + "_internal")
        row = inputs.runs_row(run_id, started_at, row_counts,
                              threads if target == "postgres" else int(settings.get("threads") or 1))
        if target == "postgres":
            warehouse.record_run(building, row, history_from=schema)
        phase("record")
        warehouse.swap(building, schema)
        swapped = True
        if target in SPARK_TARGETS:
            warehouse.record_run(schema, row, history_from=None)
        phase("swap")
    finally:
        if warehouse is not None:
            if not swapped:
                for suffix in SCHEMA_SUFFIXES:
                    try:
                        warehouse.drop_schema(building + suffix)
                    except Exception:  # the original error matters more
                        pass
            warehouse.close()
        scratch.close()
        shutil.rmtree(work, ignore_errors=True)
    summary.phases = phase.done()
    say(f"Done in {summary.phases['total']:.1f}s: results in schema {schema} of target {target} "
        f"(tables {', '.join(RESULT_TABLES)})")
    return summary


def read_tables(target: str, tables: Iterable[str], schema: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rows of result tables of `target` (default schema: the profile's), as dicts."""
    settings = target_settings(target)
    schema = schema or str(settings["schema"])
    warehouse = connect(target, settings)
    try:
        return {name: warehouse.fetch_dicts(f"select * from {schema}.{name}") for name in tables}
    finally:
        warehouse.close()

