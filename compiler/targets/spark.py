"""The Spark target (dbt-spark's session method): a SparkSession in this process (local mode, an
embedded Derby metastore). Spark has no schema rename, nor a rename of a table into another
database: the swap moves each result table's folder into the live database's folder, declares
it there as an external table next to the live one and renames it over the live one (copying
the rows instead where this process cannot reach the server's files)."""

from __future__ import annotations

import contextlib
import logging
import os
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

import duckdb

from ..errors import RunError
from ..run.build import add_filter_once
from ..run.locks import FileLock
from ..run.record import RUNS_COLUMNS
from .warehouse import Warehouse, WarehouseTarget, _export_select, _text_columns, _text_ddl

# inside a live database's folder: <run id>/<table>, the folders of the tables the swap moved there
# (the folder goes with the database: `drop database ... cascade` removes it)
RESULT_FOLDERS = "_incentives_runs"


def spark_dir() -> Path:
    """INCENTIVES_SPARK_DIR (default ./spark) made absolute, so Spark and Derby agree on it."""
    path = Path(os.environ.get("INCENTIVES_SPARK_DIR") or "spark").resolve()
    os.environ["INCENTIVES_SPARK_DIR"] = str(path)
    return path


def _staged(schema: str) -> Path:
    """The folder of the input tables a run copies into `schema` (external tables: Spark's drop
    of the schema leaves their files, drop_schema removes them)."""
    return spark_dir() / "staged" / schema


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


def _release(frame: Any) -> None:
    """Let Python free the py4j proxy of `frame`'s JVM Dataset as soon as nothing refers to it.

    py4j caches each method called on a proxy with a reference back to the proxy: a reference cycle,
    which only Python's full collection frees, and a process holding dbt's manifest runs one rarely.
    Until then the JVM keeps the statement's plan and the broadcast blocks of its joins; over a
    run's statements (and a test session's runs) the driver's heap fills with them and the JVM
    spends its time in full collections (docs/engines.md). Emptying the cache breaks the cycle."""
    methods = getattr(getattr(frame, "_jdf", None), "_methods", None)
    if isinstance(methods, dict):
        methods.clear()


def _release_dbt_statements() -> None:
    """dbt-spark's session cursor calls methods on each statement's DataFrame (its rows, its
    columns): empty the proxy's cache after each (`_release`), so the DataFrame goes with the cursor."""
    try:
        from dbt.adapters.spark.session import Cursor
    except ImportError:
        return
    if getattr(Cursor, "_incentives_releases", False):
        return

    def released(method: Any) -> Any:
        def call(self: Any, *args: Any) -> Any:
            try:
                return method(self, *args)
            finally:
                _release(getattr(self, "_df", None))
        return call

    for name in ("fetchall", "fetchone"):
        setattr(Cursor, name, released(getattr(Cursor, name)))
    description = Cursor.description
    Cursor.description = property(released(description.fget))  # type: ignore[assignment]
    Cursor._incentives_releases = True  # type: ignore[attr-defined]


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
    _release_dbt_statements()
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
    table_format = " using parquet"

    def __init__(self, settings: dict[str, Any]) -> None:
        self.session = spark_session(settings)
        # py4j reports a Ctrl-C during a call to the JVM (and pyspark's failed attempt to cancel
        # the jobs from inside that call) with tracebacks through the root logger; the command
        # says it was interrupted
        add_filter_once("", _Py4jRootRecords)

    def _collect(self, sql: str) -> list[Any]:
        frame = self.session.sql(sql)
        try:
            return frame.collect()
        finally:
            _release(frame)

    def execute(self, sql: str) -> None:
        self._collect(sql)

    def fetch(self, sql: str) -> list[tuple[Any, ...]]:
        return [tuple(r) for r in self._collect(sql)]

    def fetch_dicts(self, sql: str) -> list[dict[str, Any]]:
        return [r.asDict() for r in self._collect(sql)]

    def schema_exists(self, schema: str) -> bool:
        return bool(self.session.catalog.databaseExists(schema))

    def tables(self, schema: str) -> list[str]:
        if not self.schema_exists(schema):
            return []
        # listTables also lists the session's temporary views (dbt's `__dbt_tmp` views of a
        # failed node stay for the rest of the process): only the database's own tables
        return sorted(t.name for t in self.session.catalog.listTables(schema)
                      if t.tableType != "VIEW" and not t.isTemporary)

    def staged(self, schema: str) -> Path | None:
        """The folder of the Parquet files behind `schema`'s external tables (copy_from_duckdb)."""
        return _staged(schema)

    def drop_schema(self, schema: str) -> None:
        self.execute(f"drop database if exists {schema} cascade")
        folder = self.staged(schema)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        """The rows as a Parquet file DuckDB writes into the folder of an external table of Spark's
        (staged(): spark_dir()/staged/<schema>/<name>), declared with its columns: no Spark job, one
        metastore call (saveAsTable wrote the same rows a second time, about 2 s a table). The
        folder goes with the schema (drop_schema)."""
        staged = self.staged(schema)
        assert staged is not None
        columns = _text_columns(scratch, relation)
        folder = staged / name
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        for made in (folder, staged, staged.parent):  # a Thrift server may run as another user
            with contextlib.suppress(OSError):  # a folder another user made (and opened)
                os.chmod(made, 0o755)
        scratch.execute(f"copy ({_export_select(columns, relation)}) to '{folder / 'part-00000.parquet'}' (format parquet)")
        self.execute(f"create table {schema}.{name} ({_text_ddl(columns)}) using parquet location 'file://{folder}'")

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        from pyspark.sql.types import IntegerType, StringType, StructField, StructType, TimestampNTZType

        types = {"string": StringType(), "timestamp": TimestampNTZType(), "integer": IntegerType()}
        ddl = ", ".join(f"{c} {'timestamp_ntz' if t == 'timestamp' else t}" for c, t in RUNS_COLUMNS)
        self.execute(f"create table if not exists {schema}.runs ({ddl}) using parquet")
        frame = self.session.createDataFrame([row], StructType([StructField(c, types[t]) for c, t in RUNS_COLUMNS]))
        frame.write.insertInto(f"{schema}.runs")

    def shares_files(self) -> bool:
        """Whether this process reaches the files of the tables (the session's own warehouse)."""
        return True

    def local_folder(self, kind: str, name: str) -> Path | None:
        """The local folder of the `kind` ("table" / "database") `name` (its `describe ... extended`
        Location), when it is one this process reaches; else None."""
        if not self.shares_files():
            return None
        rows = self.fetch(f"describe {kind} extended {name}")
        location = next((str(r[1]) for r in rows if str(r[0]).strip() == "Location"), "")
        url = urlparse(location)
        folder = Path(unquote(url.path)) if url.scheme == "file" else None
        return folder if folder is not None and folder.is_dir() else None

    def _move_results(self, building: str, live: Path | None, run_id: str, tables: list[str]) -> dict[str, Path]:
        """Each of `tables`' folder moved from `building` into <`live`, the live database's
        folder>/RESULT_FOLDERS/<run id>/: a rename on one file system, no rows read or written.
        Nothing is moved (an empty dict: the swap copies the rows) unless every folder can be."""
        built = self.local_folder("database", building)
        if live is None or built is None:
            return {}
        sources = {table: built / table.lower() for table in tables}  # a managed table's folder
        if not all(source.is_dir() for source in sources.values()):
            return {}
        into = live / RESULT_FOLDERS / run_id
        if into.exists():
            return {}
        moved: dict[str, Path] = {}
        try:
            into.mkdir(parents=True)
            for table, source in sources.items():
                os.rename(source, into / table)
                moved[table] = source
        except OSError:  # another file system, or the server's files are not ours to move
            for table, source in moved.items():
                os.rename(into / table, source)
            shutil.rmtree(into, ignore_errors=True)
            return {}
        return {table: into / table for table in tables}

    def _remove_replaced_results(self, schema: str, live: Path, run_id: str, kept: list[str]) -> None:
        """The folders of RESULT_FOLDERS no live table reads any more: those of the tables this
        swap replaced, and those a run interrupted in its swap left (the lock is held). `kept`: the
        live tables the swap did not replace (a history table a first run moved is one)."""
        read = {self.local_folder("table", f"{schema}.{table}") for table in kept}
        for run in (live / RESULT_FOLDERS).iterdir():
            if run.name == run_id:
                continue
            for folder in run.iterdir():
                if folder not in read:
                    shutil.rmtree(folder, ignore_errors=True)
            with contextlib.suppress(OSError):
                run.rmdir()

    def swap(self, building: str, schema: str, run_id: str) -> None:
        """Each result table next to the live one (its folder moved (_move_results) or its rows
        copied), then renamed over the live one; then the run's rows appended to the live history
        tables (which are neither moved nor copied)."""
        self.create_schema(schema)
        live = set(self.tables(schema))
        built = self.tables(building)
        history = self.appended_history(live, built)
        tables = [name for name in built if name not in history]
        folder = self.local_folder("database", schema)
        moved = self._move_results(building, folder, run_id, tables)
        for table in tables:  # a statement costs a metastore round trip: none for tables that are not there
            if f"{table}__new" in live:  # left by a run interrupted in its swap
                self.execute(f"drop table {schema}.{table}__new")
            if moved:
                self.execute(f"create table {schema}.{table}__new using parquet location 'file://{moved[table]}'")
            else:
                self.execute(f"create table {schema}.{table}__new using parquet as select * from {building}.{table}")
        for table in tables:
            if f"{table}__old" in live:
                self.execute(f"drop table {schema}.{table}__old")
            if table in live:
                self.execute(f"alter table {schema}.{table} rename to {schema}.{table}__old")
            self.execute(f"alter table {schema}.{table}__new rename to {schema}.{table}")
        for table in tables:
            if table in live:
                self.execute(f"drop table {schema}.{table}__old")
        for name in history:
            self.append_history(building, schema, name, run_id)
        self.drop_schemas(building)
        if moved and folder is not None:
            self._remove_replaced_results(schema, folder, run_id, [name for name in self.tables(schema) if name not in tables])


class SparkTarget(WarehouseTarget):
    """`incentives run --target spark`."""

    name = "spark"
    adapter_type = "spark"
    parquet_tables = True
    records_after_swap = True

    @classmethod
    def prepare_environment(cls) -> None:
        spark_dir()

    def connect(self) -> Warehouse:
        return Spark(self.settings)

    def lock(self) -> FileLock:
        """A file lock on the metastore directory: its Derby metastore admits one process at a time."""
        directory = spark_dir()
        return FileLock(directory / "incentives-run.lock",
                        f"the Spark metastore {directory} (schema {self.settings['schema']})")


TARGET = SparkTarget
