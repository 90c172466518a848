"""The DuckDB target (the default): a run builds into a new database file in a folder next to the
target file, ``<database>.building/incentives.duckdb``, and only a fully successful build replaces
the target (an atomic rename), so a failed or killed run leaves the previous results exactly as
they were."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
from pathlib import Path
from typing import Any, Iterable

import duckdb

from ..compile.programs import RejectedProgram
from ..run.build import build_selection, run_dbt, run_vars
from ..run.load import RULES_SCHEMA_SUFFIX, compile_alongside, load_and_validate, load_rule_tables
from ..run.locks import FileLock, duckdb_lock
from ..run.progress import PhaseTimer
from ..run.sql import sql_string
from ..run.validate_data import check_rule_tables, compile_rule_checks
from ..statements import with_statements
from ..run.record import (HISTORY_TABLES, REJECTED_TABLES, RESULT_TABLES, RUNS_COLUMNS, RunInputs, Summary, rejected_tables_sql,
                               run_context_sql, stage_rejected_programs, summarize_with)
from .base import RunJob, Target


class DuckDBTarget(Target):
    """`incentives run --database FILE.duckdb`: the results in a DuckDB file."""

    name = "duckdb"
    adapter_type = "duckdb"

    def __init__(self, database: Path) -> None:
        self.database = database.resolve()

    @classmethod
    def create(cls, database: Path | None = None, settings: dict[str, Any] | None = None) -> "DuckDBTarget":
        assert database is not None, "a DuckDB run needs a database file"
        return cls(database)

    def lock(self) -> FileLock:
        return duckdb_lock(self.database)

    def run(self, job: RunJob, wait: float | None = None) -> Summary:
        self.database.parent.mkdir(parents=True, exist_ok=True)
        with self.lock().acquire(wait) as lock:
            if lock.previous_owner:
                job.say(f"Taking over the lock of an ended run ({lock.previous_owner}); removing what it left")
            return self.run_locked(job)

    def run_locked(self, job: RunJob) -> Summary:
        programs, data_dir, database, say, threads = job.programs, job.data_dir, self.database, job.say, job.threads
        unit_tests, skip_invalid_programs, skip_invalid_rows = job.unit_tests, job.skip_invalid_programs, job.skip_invalid_rows
        started_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
        phase = PhaseTimer()

        building = building_file(database)
        rules_dir = database.with_name(database.name + ".rules")
        _remove_building(building)  # what a killed run left (we hold the lock)
        building.parent.mkdir()
        try:
            say(f"Compiling {programs}")
            say(f"Loading {data_dir}")
            (counts, inputs, run_id), rejected = compile_alongside(
                programs, rules_dir, say, phase, "load",
                lambda: _load_building(building, programs, data_dir, started_at, skip_invalid_rows, unit_tests,
                                       job.statements, job.forecast),
                skip_invalid_programs)
            say("  " + ", ".join(f"{name} {n:,}" for name, n in counts.items()))
            say(f"  run id {run_id}")
            con = duckdb.connect(str(building))
            try:  # the rule tables where dbt's seeds go, and the seeds' data tests on them (the build leaves both out)
                carry_history(con, database)
                load_rule_tables(con, rules_dir, "main" + RULES_SCHEMA_SUFFIX)
                for warning in check_rule_tables(con, compile_rule_checks(building.name, run_vars(unit_tests, data_dir=data_dir))):
                    say(f"  warning: {warning}")
            finally:
                con.close()
            phase("rules")
            say("Building (dbt build)")
            statements = job.statements is not None
            args = ["build", "--vars", json.dumps(run_vars(unit_tests, statements, data_dir, job.forecast)),
                    *build_selection(unit_tests, rule_checks_done=True, statements=statements)]
            run_dbt(args, building, say, threads)
            phase("build")
            record_run(building, database, run_id, started_at, inputs, counts, threads, rejected)
            phase("record")
            os.replace(building, database)
            phase("swap")
        finally:
            _remove_building(building)
            shutil.rmtree(rules_dir, ignore_errors=True)
        summary = summarize(database)
        phase("summary")
        summary.phases = phase.done()
        say(f"Done in {summary.phases['total']:.1f}s: results in {database} "
            f"(tables {', '.join(RESULT_TABLES)})")
        return summary

    def read_tables(self, tables: Iterable[str], schema: str | None = None) -> dict[str, list[dict[str, Any]]]:
        con = duckdb.connect(str(self.database), read_only=True)
        try:
            out = {}
            for name in tables:
                cursor = con.execute(f"select * from {schema or 'main'}.{name}")
                columns = [d[0] for d in cursor.description]
                out[name] = [dict(zip(columns, row)) for row in cursor.fetchall()]
            return out
        finally:
            con.close()


TARGET = DuckDBTarget

# The file a run builds in, in the folder <database>.building next to the results: the same name
# on every run, so dbt's profile, the models' compiled SQL (which names the database) and the
# compiled input checks are the same whatever the results' path, and a run on a new path reuses
# the saved parse and checks (docs/performance.md, "The first run on a new database path").
BUILDING_NAME = "incentives.duckdb"


def building_file(database: Path) -> Path:
    """Where a run on `database` builds before the swap."""
    return database.with_name(database.name + ".building") / BUILDING_NAME


def _remove_building(building: Path) -> None:
    """The building folder and what is in it (the file and its write-ahead log); an older
    version's building file of the folder's name too."""
    folder = building.parent
    if folder.is_dir():
        shutil.rmtree(folder, ignore_errors=True)
    elif folder.exists():
        folder.unlink()


def _load_building(building: Path, programs: Path, data_dir: Path, started_at: dt.datetime,
                   skip_invalid_rows: bool = False, unit_tests: bool = False,
                   statements: Path | None = None,
                   forecast: dict[str, Any] | None = None) -> tuple[dict[str, int], RunInputs, str]:
    """Load and validate the input files (and the statements, if any) into the new database file
    and give it the run's context (run_context: its id, the forecast's dates): the row counts, the
    inputs' hashes and the run id."""
    con = duckdb.connect(str(building))
    try:
        counts, sources = with_statements(
            con, statements, skip_invalid_rows,
            lambda: load_and_validate(con, data_dir, skip_invalid_rows, building.name, run_vars(unit_tests, data_dir=data_dir)))
        inputs = RunInputs.of(programs, {name: src.path for name, src in sources.items()})
        run_id = inputs.run_id(started_at)
        con.execute(run_context_sql(run_id, forecast=forecast))
        con.execute("checkpoint")
    finally:
        con.close()
    return counts, inputs, run_id


def carry_history(con: Any, database: Path) -> None:
    """The previous results' HISTORY_TABLES into the building file, where dbt's incremental model
    appends this run's rows (docs/forecast.md); nothing when there are no previous results."""
    if not database.exists():
        return
    con.execute(f"attach {sql_string(str(database.resolve()))} as previous (read_only)")
    try:
        have = {r[0] for r in con.execute(
            "select table_name from information_schema.tables where table_catalog = 'previous' "
            "and table_schema = 'main'").fetchall()}
        for name in HISTORY_TABLES:
            if name in have:
                con.execute(f"create table main.{name} as select * from previous.main.{name}")
    finally:
        con.execute("detach previous")


RUNS_DDL = "create table if not exists main.runs ({})".format(", ".join(
    f"{c} {'varchar' if t == 'string' else t}" for c, t in RUNS_COLUMNS))


def record_run(building: Path, previous: Path, run_id: str, started_at: dt.datetime, inputs: RunInputs,
               input_counts: dict[str, int], threads: int, rejected: list[RejectedProgram] | None = None) -> None:
    """Write the rejection tables and append this run to `main.runs`, carrying over the history of
    the previous results file."""
    con = duckdb.connect(str(building))
    try:
        stage_rejected_programs(con, rejected or [])
        for sql in rejected_tables_sql("main", "raw"):
            con.execute(sql)
        con.execute(RUNS_DDL)
        if previous.exists():
            try:
                con.execute(f"attach {sql_string(str(previous))} as previous (read_only)")
                has_runs = con.execute(
                    "select count(*) from duckdb_tables() where database_name = 'previous' and table_name = 'runs'"
                ).fetchone()[0]
                if has_runs:
                    con.execute("insert into main.runs select * from previous.main.runs")
            except duckdb.Error:
                pass  # an unreadable previous file has no history to carry over
            finally:
                con.execute("detach database if exists previous")
        counts = dict(input_counts)
        for table in (*RESULT_TABLES, "run_warnings", *REJECTED_TABLES):
            counts[table] = con.execute(f"select count(*) from main.{table}").fetchone()[0]
        con.execute("insert into main.runs values (?, ?, ?, ?, ?, ?, ?, ?)",
                    list(inputs.runs_row(run_id, started_at, counts, threads)))
        con.execute("checkpoint")
    finally:
        con.close()


def summarize(database: Path) -> Summary:
    """Figures of the results in `database` (opened read-only)."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        return summarize_with(lambda sql: con.execute(sql).fetchall())
    finally:
        con.close()
