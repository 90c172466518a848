"""The targets that build in schemas of a warehouse: PostgreSQL (postgres.py), Spark in this process
(spark.py) and a Spark Thrift server (spark_thrift.py), for `incentives run --target ...`.

The pipeline is the DuckDB one (duckdb.py) with another warehouse at the end:

1. compile the programs into rule CSVs; load the input files into a scratch in-memory DuckDB and
   validate them there (the same readers and checks as a DuckDB run, so every engine sees the same
   text and the same NULLs);
2. copy the raw tables and the rule tables into the target, into fresh schemas
   `<schema>__building_raw` and `<schema>__building_rules` (PostgreSQL: COPY through psycopg2;
   Spark: Parquet files written by DuckDB, declared as external tables; a Spark Thrift server: the
   same when it shares this machine's files, else `insert ... values` through dbt-spark's
   connection);
3. `dbt build --target <target>` in-process into `<schema>__building` (+ `_internal`): the var
   `incentives_build_schema` (the schema of the target in profiles/profiles.yml; dbt's default schema naming adds `_internal`, `_rules`), with `incentives_input_schema` pointing at the copied
   inputs and the rule tables where the seeds go (`<build schema>_rules`), the seeds left out;
4. record the run in `runs` and swap the new results in. PostgreSQL renames the schemas in one
   transaction (atomic: readers see the old results or the new ones); Spark has no schema rename,
   so each result table's folder is moved into the live database's (its rows copied where this
   process cannot reach the files) and the table renamed over the live one (a reader may find a
   table missing for the instant between two renames; a failed build leaves everything as it was).
   The history (HISTORY_TABLES) is not copied: the build gets the latest run's rows, and the swap
   appends the run's rows to the live history table (docs/forecast.md).

Connection settings come from the `incentives` profile (profiles/profiles.yml) as dbt renders it,
environment variables included, so this module and dbt always talk to the same database.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import shutil
import tempfile
from abc import abstractmethod
from pathlib import Path
from typing import Any, ClassVar, Iterable

import duckdb

from ..errors import RunError
from ..run.build import PROJECT_DIR, build_selection, run_dbt, run_vars
from ..run.load import RULES_SCHEMA_SUFFIX, compile_alongside, load_and_validate, load_rule_tables
from ..run.progress import PhaseTimer
from ..run.record import (HISTORY_TABLES, REJECTED_TABLES, RESULT_TABLES, RUN_CONTEXT, RunInputs, Summary,
                               rejected_tables_sql, run_context_sql, stage_rejected_programs, summarize_with)
from ..run.sql import sql_string
from ..run.validate_data import check_rule_tables, compile_rule_checks
from ..statements import with_statements
from . import TARGETS, get_target, target_class
from .base import RunJob, RunLock, Target

PROFILE_NAME = "incentives"

PROFILES_DIR = PROJECT_DIR / "profiles"
# the schemas one run owns, as suffixes of the target's schema: results, dbt's internal models,
# the loaded inputs and the loaded rule tables
SCHEMA_SUFFIXES = ("", "_internal", "_raw", "_rules")
BUILDING = "__building"
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


# --------------------------------------------------------------------------- profile


def target_settings(target: str) -> dict[str, Any]:
    """The `target` output of the incentives profile, rendered by dbt (env_var() applied)."""
    from dbt.config.profile import Profile, read_profile
    from dbt.config.renderer import ProfileRenderer
    from dbt_common.context import set_invocation_context

    cls = target_class(target)
    cls.prepare_environment()
    set_invocation_context(os.environ)
    try:
        raw = read_profile(str(PROFILES_DIR))
        _, settings = Profile.render_profile(raw[PROFILE_NAME], PROFILE_NAME, target, ProfileRenderer({}))
    except Exception as exc:  # dbt's errors (unknown target, bad YAML) carry the explanation
        raise RunError(f"cannot read target {target!r} of profiles/profiles.yml: {exc}") from None
    if settings.get("type") != cls.adapter_type:
        raise RunError(f"target {target!r} of profiles/profiles.yml has type {settings.get('type')!r}")
    schema = str(settings.get("schema") or "")
    if not _IDENTIFIER.match(schema):
        raise RunError(f"target {target!r}: schema {schema!r} must be a plain identifier (letters, digits, _)")
    return settings


# --------------------------------------------------------------------------- warehouses


class Warehouse:
    """A connection to the target engine: SQL, and tables copied from the scratch DuckDB."""

    target = ""
    table_format: ClassVar[str] = ""  # what `create table ... as` needs to write the engine's tables

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

    def drop_schemas(self, base: str) -> None:
        """`base` and the custom schemas dbt names after it (SCHEMA_SUFFIXES)."""
        for suffix in SCHEMA_SUFFIXES:
            self.drop_schema(base + suffix)

    def create_schema(self, schema: str) -> None:
        self.execute(f"create schema if not exists {schema}")

    def copy_from_duckdb(self, scratch: duckdb.DuckDBPyConnection, relation: str, schema: str, name: str) -> None:
        """Create `schema.name` with the rows of the scratch DuckDB's `relation`: `_row` stays a
        bigint, every other column is text (the staging models cast them)."""
        raise NotImplementedError

    def record_run(self, schema: str, row: tuple[Any, ...], history_from: str | None) -> None:
        raise NotImplementedError

    def carry_latest_run(self, from_schema: str, to_schema: str, name: str) -> None:
        """The latest run's rows of the history table `from_schema.name` (HISTORY_TABLES: runs
        ordered as accrual_changes orders them) as `to_schema.name`: all the build reads of the
        history. The swap appends the run's own rows to the live table (append_history), so a run
        writes its own rows, whatever the number of runs before it."""
        table = f"{from_schema}.{name}"
        latest = f"(select max(recorded_at) from {table})"
        self.execute(f"create table {to_schema}.{name}{self.table_format} as select * from {table} "
                     f"where recorded_at = {latest} and run_id = (select max(run_id) from {table} where recorded_at = {latest})")

    def append_history(self, building: str, schema: str, name: str, run_id: str) -> None:
        """The run's rows of `building.name` appended to the live history table `schema.name`."""
        self.execute(f"insert into {schema}.{name} select * from {building}.{name} where run_id = {sql_string(run_id)}")

    @staticmethod
    def appended_history(live: Iterable[str], built: Iterable[str]) -> list[str]:
        """The history tables the swap appends the run's rows to (append_history) instead of
        replacing them: those live already that the build wrote."""
        live, built = set(live), set(built)
        return [name for name in HISTORY_TABLES if name in live and name in built]

    def swap(self, building: str, schema: str, run_id: str) -> None:
        """The building schemas' tables in place of the live ones; a history table that is live
        already keeps its rows and gains the run's (appended_history)."""
        raise NotImplementedError

    def close(self) -> None:
        pass


def _text_columns(scratch: duckdb.DuckDBPyConnection, relation: str) -> list[str]:
    return [r[0] for r in scratch.execute(f"describe select * from {relation}").fetchall()]


def _text_ddl(columns: Iterable[str]) -> str:
    """The Spark columns of a copied table: `_row` a bigint, every other column text."""
    return ", ".join(f"`{c}` {'bigint' if c == '_row' else 'string'}" for c in columns)


def _export_select(columns: Iterable[str], relation: str) -> str:
    cols = ", ".join('"_row"' if c == "_row" else f'cast("{c}" as varchar) as "{c}"' for c in columns)
    return f"select {cols} from {relation}"


class WarehouseTarget(Target):
    """A target of the profile that builds in schemas: the run loads and validates the inputs in a
    scratch DuckDB, copies them into fresh schemas, builds, records and swaps the schemas in."""

    parquet_tables: ClassVar[bool] = False  # tables it creates need `using parquet`
    records_after_swap: ClassVar[bool] = False  # appends to `runs` after the swap (no history carried)

    def __init__(self, settings: dict[str, Any]) -> None:
        self.settings = settings

    @classmethod
    def create(cls, database: Path | None = None, settings: dict[str, Any] | None = None) -> "WarehouseTarget":
        return cls(settings or target_settings(cls.name))

    @abstractmethod
    def connect(self) -> Warehouse:
        """A connection to the target's engine."""

    def runs_threads(self, threads: int) -> int:
        """The threads recorded in `runs`: the profile's."""
        return int(self.settings.get("threads") or 1)

    def run_locked(self, job: RunJob) -> Summary:
        target, settings, programs, data_dir, say = self.name, self.settings, job.programs, job.data_dir, job.say
        threads, unit_tests = job.threads, job.unit_tests
        skip_invalid_programs, skip_invalid_rows = job.skip_invalid_programs, job.skip_invalid_rows
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
            check_vars = run_vars(False, data_dir=data_dir)  # of the checks compiled for the scratch DuckDB
            (counts, sources), rejected = compile_alongside(
                programs, rules_dir, say, phase, "validate",
                lambda: with_statements(scratch, job.statements, skip_invalid_rows,
                                        lambda: load_and_validate(scratch, data_dir, skip_invalid_rows,
                                                                  dbt_vars=check_vars)),
                skip_invalid_programs)
            stage_rejected_programs(scratch, rejected)
            rule_names = load_rule_csvs(scratch, rules_dir)
            # the seeds' data tests on the rule tables, in one query in the scratch DuckDB (as a DuckDB
            # run does): the build leaves them out instead of sending the target one query each
            load_rule_tables(scratch, rules_dir, "main" + RULES_SCHEMA_SUFFIX)
            for warning in check_rule_tables(scratch, compile_rule_checks(":memory:", check_vars)):
                say(f"  warning: {warning}")
            phase("read rules")
            say(f"  {', '.join(f'{name} {n:,}' for name, n in counts.items())}")

            say(f"Loading into {target} (schemas {building}_raw, {building}_rules)")
            warehouse = self.connect()
            warehouse.drop_schemas(building)  # what a failed or killed earlier run left
            for suffix in ("_raw", "_rules"):
                warehouse.create_schema(building + suffix)
            for name in (*counts, *REJECTED_TABLES):
                warehouse.copy_from_duckdb(scratch, f"raw.{name}", building + "_raw", name)
            for name in rule_names:
                warehouse.copy_from_duckdb(scratch, f"rules.{name}", building + "_rules", name)
            live = set(warehouse.tables(schema))
            for name in HISTORY_TABLES:  # the previous run's rows, where dbt's incremental model appends
                if name in live:
                    warehouse.create_schema(building)
                    warehouse.carry_latest_run(schema, building, name)
            phase("load")

            inputs = RunInputs.of(programs, {name: src.path for name, src in sources.items()})
            run_id = inputs.run_id(started_at)
            scratch.execute(run_context_sql(run_id, forecast=job.forecast))
            warehouse.copy_from_duckdb(scratch, f"raw.{RUN_CONTEXT}", building + "_raw", RUN_CONTEXT)
            say(f"  run id {run_id}")
            say(f"Building (dbt build --target {target}) into {building}")
            # the same vars on every run (the run id is in run_context), so dbt reuses its partial parse
            statements = job.statements is not None
            dbt_vars = run_vars(unit_tests, statements, data_dir, job.forecast, incentives_build_schema=building,
                                incentives_input_schema=building + "_raw")
            # the rule tables are where dbt's seeds go (<build schema>_rules): the seeds are left out
            args = ["build", "--target", target, "--vars", json.dumps(dbt_vars),
                    *build_selection(unit_tests, rule_checks_done=True, statements=statements)]
            run_dbt(args, None, say, threads)
            phase("build")

            for sql in rejected_tables_sql(building, building + "_raw", spark=self.parquet_tables):
                warehouse.execute(sql)
            row_counts = dict(counts)
            for table in (*RESULT_TABLES, "run_warnings", *REJECTED_TABLES):
                row_counts[table] = int(warehouse.fetch(f"select count(*) from {building}.{table}")[0][0])
            summary = summarize_with(warehouse.fetch, building, building + "_internal")
            row = inputs.runs_row(run_id, started_at, row_counts,
                                  self.runs_threads(threads))
            if not self.records_after_swap:
                warehouse.record_run(building, row, history_from=schema)
            phase("record")
            warehouse.swap(building, schema, run_id)
            swapped = True
            if self.records_after_swap:
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

    def read_tables(self, tables: Iterable[str], schema: str | None = None) -> dict[str, list[dict[str, Any]]]:
        schema = schema or str(self.settings["schema"])
        warehouse = self.connect()
        try:
            return {name: warehouse.fetch_dicts(f"select * from {schema}.{name}") for name in tables}
        finally:
            warehouse.close()


def connect(target: str, settings: dict[str, Any] | None = None) -> Warehouse:
    """A connection to `target` of the profile (postgres, spark or spark_thrift). A helper for the
    tests and the bench scripts (tests/, bench/), which reach a warehouse by its target's name; a
    run does not use it."""
    cls = target_class(target)
    if not issubclass(cls, WarehouseTarget):
        raise RunError(f"unknown target {target!r}; one of {', '.join(TARGETS)}")
    return cls.create(settings=settings).connect()


def load_rule_csvs(scratch: duckdb.DuckDBPyConnection, rules_dir: Path, schema: str = "rules") -> list[str]:
    """Read the compiled rule CSVs (the seeds) into the scratch DuckDB as text, to copy them to the
    target exactly as written (the staging models cast them)."""
    return load_rule_tables(scratch, rules_dir, schema, typed=False)
