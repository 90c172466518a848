"""`incentives run`: compile, load the input files into a new DuckDB file, dbt build, swap in.

The build goes into ``<database>.building`` next to the target file, and only a fully
successful build replaces the target (an atomic rename), so a failed or killed run leaves the
previous results exactly as they were.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import logging
import os
import shutil
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

import duckdb

from .compile import RejectedProgram, compile_text, gc_paused, write_rules
from .errors import DataError, IncentivesError, IssueCollector, RunError
from .validate_data import Source, compile_input_checks, validate_inputs

PROJECT_DIR = Path(__file__).resolve().parent.parent
INPUT_COLUMNS: dict[str, tuple[str, ...]] = {
    "transactions": ("transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key",
                     "quantity", "uom_key", "amount"),
    "products": ("sku_key", "brand_key"),
    "properties": ("level", "entity_id", "transaction_id", "key", "value"),
    "waivers": ("program_key", "qualification_key", "offer_key", "entity_id"),
    "prices": ("sku_key", "price", "start_date", "end_date"),
    "enrollments": ("entity_id", "program_key"),
}
REQUIRED_INPUTS = ("transactions", "products")
# Stored without compression: transaction_id is unique by contract, so DuckDB's dictionary/FSST
# compression costs a quarter of the load's CPU time for it alone (10M Parquet rows: 5.0 s instead
# of 6.6 s) and saves little (the database file is ~100 MB larger without it).
UNCOMPRESSED_COLUMNS: dict[str, tuple[str, ...]] = {"transactions": ("transaction_id",)}
RESULT_TABLES = ("qualification_results", "potential_earnings", "offer_results")
SHOWN_REJECTIONS = 20  # problems of left-out programs and rows listed in the summary (all are in the tables)

Say = Callable[[str], None]
T = TypeVar("T")


def _say(message: str) -> None:
    print(message, flush=True)


def find_input(data_dir: Path, name: str) -> Path | None:
    """The input file for table `name`: DIR/name.csv or DIR/name.parquet."""
    for suffix in (".parquet", ".csv"):
        path = data_dir / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def _sql_string(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def load_inputs(con: Any, data_dir: Path, schema: str = "raw") -> tuple[dict[str, int], dict[str, Source]]:
    """Load every input file into `schema` with a `_row` number (optional tables empty when absent).

    Returns the row counts and where each loaded table came from.
    """
    issues = IssueCollector()
    if not data_dir.is_dir():
        issues.add(str(data_dir), "data folder not found", str(data_dir), "a folder with transactions and products files")
        raise DataError("Input data cannot be loaded", issues.issues)
    con.execute(f"create schema if not exists {schema}")
    counts: dict[str, int] = {}
    sources: dict[str, Source] = {}
    for name, columns in INPUT_COLUMNS.items():
        path = find_input(data_dir, name)
        if path is None:
            if name in REQUIRED_INPUTS:
                issues.add(f"{data_dir}/{name}.csv", "required input file is missing", None,
                           f"{name}.csv or {name}.parquet")
                continue
            cols = ", ".join(f'"{c}" varchar' for c in columns)
            con.execute(f"create table {schema}.{name} (_row bigint, {cols})")
            counts[name] = 0
            continue
        if path.suffix == ".csv":
            reader = f"read_csv({_sql_string(str(path))}, header = true, all_varchar = true)"
            row_number = "row_number() over ()"
        else:  # the row number Parquet keeps costs nothing, a window over millions of rows does
            reader = f"read_parquet({_sql_string(str(path))}, file_row_number = true)"
            row_number = "file_row_number + 1"
        try:
            types = {r[0]: r[1] for r in con.execute(f"describe select * from {reader}").fetchall()}
            missing = [c for c in columns if c not in types]
            if missing:
                issues.add(str(path), "missing required column" + ("s" if len(missing) > 1 else ""),
                           ", ".join(missing), "columns " + ", ".join(columns))
                continue
            ddl = ", ".join(f'"{c}" {types[c]}' + (" using compression uncompressed"
                                                   if c in UNCOMPRESSED_COLUMNS.get(name, ()) else "")
                            for c in columns)
            con.execute(f"create table {schema}.{name} (_row bigint, {ddl})")
            select = ", ".join(f'"{c}"' for c in columns)
            con.execute(f"insert into {schema}.{name} select {row_number}, {select} from {reader}")
        except duckdb.Error as exc:
            issues.add(str(path), "file cannot be read", str(exc).splitlines()[0],
                       f"a {path.suffix[1:]} file with a header row")
            continue
        counts[name] = con.execute(f"select count(*) from {schema}.{name}").fetchone()[0]
        sources[name] = Source(name, path)
    if issues.errors:
        raise DataError("Input data cannot be loaded", issues.issues)
    return counts, sources


RUN_CONTEXT = "run_context"
# The dbt vars `incentives run` passes besides the schemas: the same on every run, so
# dbt reuses its partial parse (target/partial_parse.msgpack) instead of re-parsing the project
# (vars that change, such as a run id, force a full parse). The run id is data: the one row of
# the table run_context in the input schema, read by macros/run_id.sql.
RUN_CONTEXT_VARS: dict[str, Any] = {"run_context": True}


def run_context_sql(run_id: str, schema: str = "raw") -> str:
    """DuckDB SQL creating `schema.run_context`: one row, the run id the result rows carry."""
    return f"create or replace table {schema}.{RUN_CONTEXT} as select cast({_sql_string(run_id)} as varchar) as run_id"


def file_sha256(path: Path) -> str:
    """SHA-256 of a file's bytes (read in chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


@dataclass(frozen=True)
class RunInputs:
    """What a run evaluated: the SHA-256 of the programs file and of each input file (each file
    is read once, for the run id and the runs table)."""

    programs_sha256: str
    inputs_sha256: dict[str, str]

    @classmethod
    def of(cls, programs: Path, inputs: dict[str, Path]) -> "RunInputs":
        return cls(file_sha256(programs), {name: file_sha256(path) for name, path in sorted(inputs.items())})

    def run_id(self, started_at: dt.datetime) -> str:
        """`<UTC start>-<8 hex of the inputs' hashes>`: sortable, and names what was evaluated."""
        digest = hashlib.sha256(self.programs_sha256.encode())
        for name, sha in self.inputs_sha256.items():
            digest.update(f"{name}:{sha}".encode())
        return f"{started_at:%Y%m%dT%H%M%SZ}-{digest.hexdigest()[:8]}"

    def runs_row(self, run_id: str, started_at: dt.datetime, row_counts: dict[str, int],
                 threads: int) -> tuple[Any, ...]:
        """This run's row of the `runs` table (see RUNS_DDL), finished now."""
        from . import __version__

        return (run_id, started_at.replace(tzinfo=None),
                dt.datetime.now(dt.timezone.utc).replace(microsecond=0, tzinfo=None), __version__,
                self.programs_sha256, json.dumps(self.inputs_sha256, sort_keys=True),
                json.dumps(row_counts, sort_keys=True), threads)


def _compile_and_import_dbt(programs: Path, rules_dir: Path,
                            skip_invalid: bool) -> tuple[str, float, list[RejectedProgram]]:
    """compile_programs, then import dbt: the compile's summary line, the seconds it took and the
    programs left out."""
    started = time.perf_counter()
    line, rejected = compile_programs(programs, rules_dir, skip_invalid)
    seconds = time.perf_counter() - started
    import dbt.cli.main  # noqa: F401  (what run_dbt imports; the adapters are imported by dbt)

    return line, seconds, rejected


def compile_alongside(programs: Path, rules_dir: Path, say: Say, phase: PhaseTimer, load_phase: str,
                      load: Callable[[], T], skip_invalid_programs: bool = False) -> tuple[T, list[RejectedProgram]]:
    """Compile the programs into `rules_dir` in a thread while `load()` runs, and return what
    `load` returned and the programs left out (`skip_invalid_programs`, see compile_text).

    Loading and validating the input files is DuckDB's work, done outside Python's interpreter
    lock, so compiling (Python) and then importing dbt (about a second of Python that would
    otherwise start the build) take no time of their own when the load is longer. When both
    fail, one error lists the problems of the programs and of the data. Phases: `compile` (the
    thread's compiling), `load_phase`, and `wait` for the thread once `load` is done."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="incentives-compile") as pool:
        compiled = pool.submit(_compile_and_import_dbt, programs, rules_dir, skip_invalid_programs)
        try:
            loaded = load()
        except IncentivesError as data_error:
            program_error = compiled.exception()
            if isinstance(program_error, IncentivesError):
                raise IncentivesError(f"{program_error.render()}\n{data_error.title}", data_error.issues) from None
            raise
        phase(load_phase)
        line, seconds, rejected = compiled.result()
    phase("wait")
    phase.alongside("compile", seconds)
    say(line)
    return loaded, rejected


def compile_programs(programs: Path, rules_dir: Path,
                     skip_invalid: bool = False) -> tuple[str, list[RejectedProgram]]:
    """Read and compile the programs file and write its rule tables into `rules_dir` (replaced);
    returns a summary line and the programs left out (`skip_invalid`, see compile_text)."""
    try:
        text = programs.read_text()
    except OSError as exc:
        raise RunError(f"cannot read the programs file {programs}: {exc.strerror}") from None
    rules, _ = compile_text(text, str(programs), skip_invalid)
    if rules_dir.exists():
        shutil.rmtree(rules_dir)
    write_rules(rules, rules_dir)
    line = f"  {rules.programs} programs, {rules.offers} offers -> {sum(len(r) for r in rules.tables.values()):,} rule rows"
    if rules.rejected:
        line += f"; {len({r.program_index for r in rules.rejected})} programs with problems left out"
    return line, rules.rejected


# The rejection tables every `incentives run` leaves next to its results (empty unless asked for
# with --skip-invalid-programs / --skip-invalid-rows): staged in the input schema, then copied
# into the results with the run id. Column (name, integer?) pairs.
REJECTED_TABLES: dict[str, tuple[tuple[str, bool], ...]] = {
    "rejected_programs": (("program_index", True), ("program_key", False), ("json_path", False), ("problem", False),
                          ("bad_value", False), ("expected", False), ("message", False)),
    "rejected_rows": (("table_name", False), ("file", False), ("file_row", True), ("file_line", True),
                      ("column_name", False), ("bad_value", False), ("problem", False), ("expected", False),
                      ("message", False)),
}


def stage_rejected_programs(con: Any, rejected: list[RejectedProgram], schema: str = "raw") -> None:
    """DuckDB: `schema.rejected_programs`, the problems of the programs left out (raw.rejected_rows
    is written by validate_inputs)."""
    cols = ", ".join(f"{c} {'bigint' if integer else 'varchar'}" for c, integer in REJECTED_TABLES["rejected_programs"])
    con.execute(f"create or replace table {schema}.rejected_programs ({cols})")
    if rejected:
        con.executemany(f"insert into {schema}.rejected_programs values ({', '.join(['?'] * 7)})",
                        [list(r.row()) for r in rejected])


def rejected_tables_sql(schema: str, input_schema: str, spark: bool = False) -> list[str]:
    """SQL (DuckDB, PostgreSQL, Spark) creating `schema`'s rejection tables from the staged ones in
    `input_schema`, each row with the run id of `input_schema.run_context`."""
    out = []
    for name, columns in REJECTED_TABLES.items():
        select = ", ".join(f"cast(r.{c} as bigint) as {c}" if integer else f"r.{c}" for c, integer in columns)
        out.append(f"create table {schema}.{name} {'using parquet ' if spark else ''}as select c.run_id, {select}"
                   f" from {input_schema}.{name} r cross join {input_schema}.{RUN_CONTEXT} c")
    return out


RULES_SCHEMA_SUFFIX = "_rules"  # the seeds' schema (dbt_project.yml `+schema: rules`)
_DUCKDB_KINDS = {"text": "varchar", "bigint": "bigint", "decimal": "decimal(38,10)", "date": "date",
                 "boolean": "boolean"}


def rule_csv_reader(path: Path, typed: bool = True) -> str:
    """DuckDB SQL reading one compiled rule table (a seed CSV): with the declared column types, or
    every column as text (`typed=False`, to copy to another engine exactly as written)."""
    from .rule_tables import BY_NAME, CATALOGUE, CATALOGUE_COLUMNS, CATALOGUE_HASH, Column

    if not typed:
        return f"read_csv({_sql_string(str(path))}, header = true, quote = '\"', escape = '\"', all_varchar = true)"
    columns = (CATALOGUE_COLUMNS if path.stem == CATALOGUE else
               BY_NAME[path.stem].columns + (Column(CATALOGUE_HASH, "text", ""),))
    types = ", ".join(f"'{c.name}': '{_DUCKDB_KINDS[c.kind]}'" for c in columns)
    return (f"read_csv({_sql_string(str(path))}, header = true, quote = '\"', escape = '\"', "
            f"columns = {{{types}}})")


def load_rule_tables(con: Any, rules_dir: Path, schema: str, typed: bool = True) -> list[str]:
    """Create `schema` in a DuckDB connection with one table per compiled rule CSV (what `dbt seed`
    would load, without its CSV parsing in Python; `typed=False`: every column as text, to copy
    to another engine exactly as written): the table names."""
    con.execute(f"create schema if not exists {schema}")
    names = []
    for path in sorted(rules_dir.glob("*.csv")):
        names.append(path.stem)
        con.execute(f"create or replace table {schema}.{path.stem} as select * from {rule_csv_reader(path, typed)}")
    return names


def run_vars(unit_tests: bool, **schemas: str) -> dict[str, Any]:
    """The dbt vars of `incentives run`: the schemas, the run context, unit tests when asked for."""
    return {**schemas, **RUN_CONTEXT_VARS, **({"incentives_unit_tests": True} if unit_tests else {})}


def build_selection(unit_tests: bool) -> list[str]:
    """What `incentives run` builds: every model and data test, not the seeds (the run loaded
    its own rule tables where the seeds go; their data tests still run on them), not the staging
    data tests (validate_inputs ran the source tests on the files), not the models' primary-key tests
    tagged model_key (keys the SQL itself guarantees, checked by `dbt build` alone and the unit
    tests; here they would scan the largest tables again on every run), unit tests only when asked."""
    return ["--select", "resource_type:model", "resource_type:test", *(["resource_type:unit_test"] if unit_tests else []),
            "--exclude", "test_type:data,path:models/staging", "tag:model_key"]


RUNS_DDL = """
create table if not exists main.runs (
    run_id varchar, started_at timestamp, finished_at timestamp, project_version varchar,
    programs_sha256 varchar, inputs_sha256 varchar, row_counts varchar, threads integer
)"""


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
                con.execute(f"attach {_sql_string(str(previous))} as previous (read_only)")
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


class PhaseTimer:
    """Seconds per phase of a run: call it with a phase's name when the phase ends."""

    def __init__(self) -> None:
        self.started = self.mark = time.perf_counter()
        self.phases: dict[str, float] = {}

    def __call__(self, name: str) -> None:
        now = time.perf_counter()
        self.phases[name] = now - self.mark
        self.mark = now

    def alongside(self, name: str, seconds: float) -> None:
        """A phase that ran in parallel with the others (outside their sequence), listed first."""
        self.phases = {name: seconds, **self.phases}

    def done(self) -> dict[str, float]:
        """The phases and the total."""
        self.phases["total"] = time.perf_counter() - self.started
        return self.phases


@dataclass
class Summary:
    participants: int
    programs: int
    offers: int
    offers_qualified: int
    total: str
    by_strategy: list[tuple[str, int, int, str, int]]
    warnings: list[tuple[str, int, str]] = field(default_factory=list)
    phases: dict[str, float] = field(default_factory=dict)
    rejected_programs: list[tuple[int, str]] = field(default_factory=list)  # (program index, message)
    rejected_rows: int = 0
    rejected_row_messages: list[str] = field(default_factory=list)  # the first ones

    @property
    def rejections(self) -> bool:
        """Whether programs or input rows were left out (exit code 3)."""
        return bool(self.rejected_programs or self.rejected_rows)

    def render(self) -> str:
        lines = [
            "Summary",
            f"  participants         {self.participants:>12,}",
            f"  programs             {self.programs:>12,}",
            f"  offers               {self.offers:>12,}",
            f"  offers qualified     {self.offers_qualified:>12,}  (participant x offer)",
            f"  potential earnings   {self.total:>12}",
        ]
        for strategy, offers, qualified, amount, rows in self.by_strategy:
            lines.append(f"    {strategy:<18} {amount:>12}  ({offers} offers, {qualified:,} qualified, {rows:,} earning rows)")
        if self.warnings:
            lines.append(f"  warnings             {sum(n for _, n, _ in self.warnings):>12,}  (table run_warnings)")
            for check_name, n, example in self.warnings:
                lines.append(f"    {check_name:<36} {n:>6,} rows, e.g. {example}")
        if self.rejected_programs:
            programs = len({index for index, _ in self.rejected_programs})
            lines.append(f"  rejected programs    {programs:>12,}  (left out; table rejected_programs)")
            lines += [f"    {message}" for _, message in self.rejected_programs[:SHOWN_REJECTIONS]]
            if len(self.rejected_programs) > SHOWN_REJECTIONS:
                lines.append(f"    ... {len(self.rejected_programs) - SHOWN_REJECTIONS:,} more problems in table rejected_programs")
        if self.rejected_rows:
            lines.append(f"  rejected rows        {self.rejected_rows:>12,}  (left out; table rejected_rows)")
            lines += [f"    {message}" for message in self.rejected_row_messages]
            if self.rejected_rows > len(self.rejected_row_messages):
                lines.append(f"    ... {self.rejected_rows - len(self.rejected_row_messages):,} more in table rejected_rows")
        if self.phases:
            lines.append("  timings              " + ", ".join(f"{k} {v:.2f}s" for k, v in self.phases.items()))
        return "\n".join(lines)


def summarize(database: Path) -> Summary:
    """Figures of the results in `database` (opened read-only)."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        return summarize_with(lambda sql: con.execute(sql).fetchall())
    finally:
        con.close()


def summarize_with(fetch: Callable[[str], list[Any]], schema: str = "main",
                   internal_schema: str = "main_internal") -> Summary:
    """Figures of the results in `schema` of any engine; `fetch(sql)` returns the rows."""
    ((participants, programs, offers, qualified),) = fetch(
        "select count(distinct entity_id), count(distinct program_key), count(distinct offer_key),"
        f" count(*) filter (where qualified) from {schema}.offer_results")
    total = fetch(f"select coalesce(sum(incentive_amount), 0) from {schema}.offer_results")[0][0]
    by_strategy = fetch(
        "with offers as (select r.strategy_key, o.offer_key, o.qualified, o.incentive_amount"
        f"  from {schema}.offer_results o join {internal_schema}.stg_rules__offers r on r.offer_key = o.offer_key),"
        f" earning as (select strategy_key, count(*) as earning_rows from {schema}.potential_earnings group by strategy_key)"
        " select offers.strategy_key, count(distinct offer_key), count(*) filter (where qualified),"
        " sum(incentive_amount), coalesce(max(earning.earning_rows), 0)"
        " from offers left join earning on earning.strategy_key = offers.strategy_key"
        " group by offers.strategy_key order by offers.strategy_key")
    warnings = fetch(
        "select check_name, sum(row_count), min(table_name || ' ' || column_name || ' = ' || coalesce(bad_value, ''))"
        f" from {schema}.run_warnings group by check_name order by check_name")
    summary = Summary(participants, programs, offers, qualified, f"{total:,.2f}",
                      [(s, o, q, f"{a:,.2f}", n) for s, o, q, a, n in by_strategy],
                      [(c, int(n), e) for c, n, e in warnings])
    summary.rejected_programs = [(int(index), message) for index, message in fetch(
        f"select program_index, message from {schema}.rejected_programs order by program_index, json_path")]
    summary.rejected_rows = int(fetch(f"select count(*) from {schema}.rejected_rows")[0][0])
    if summary.rejected_rows:
        summary.rejected_row_messages = [m for (m,) in fetch(
            f"select message from {schema}.rejected_rows order by table_name, file_row, column_name"
            f" limit {SHOWN_REJECTIONS}")]
    return summary


def _release_dbt_database() -> None:
    """Close the DuckDB database dbt-duckdb keeps open in this process after a command.

    Without this, a later connection to the same path in this process would get that cached
    database instance back, even after the file was renamed into place.
    """
    try:
        from dbt.adapters.duckdb.connections import DuckDBConnectionManager
    except ImportError:  # another adapter
        return
    env = getattr(DuckDBConnectionManager, "_ENV", None)
    if env is not None:
        env.close()
        DuckDBConnectionManager._ENV = None


def run_dbt(args: list[str], database: Path | None, say: Say, threads: int = 1) -> None:
    """Invoke dbt in-process against `database` (DuckDB; None: the target given in `args`),
    printing one line per finished node."""
    # dbt's import, project load and run allocate hundreds of thousands of long-lived objects that
    # the cyclic collector would walk again and again (~0.5 s of a small run); its garbage is
    # bounded (a few MB per invocation, whatever the data size) and collected afterwards
    with gc_paused():
        _run_dbt(args, database, say, threads)


class _QuietInterruption(logging.Filter):
    """Keeps dbt's console from reporting a Ctrl-C as a crash: an empty "Encountered an error:",
    the stack trace of the KeyboardInterrupt and, on Spark, the Java stack trace of every job the
    interruption cancelled (logs/dbt.log still has them all). The lines of the cancelled nodes
    stay, and the command then says it was interrupted."""

    def filter(self, record: logging.LogRecord) -> bool:
        text = record.getMessage().rstrip()
        crash = text.endswith("KeyboardInterrupt") and "Traceback (most recent call last)" in text
        cancelled_job = "[SPARK_JOB_CANCELLED]" in text
        return not (crash or cancelled_job or text.endswith("Encountered an error:"))


def add_filter_once(logger_name: str, kind: type[logging.Filter]) -> None:
    """Adds a `kind` filter to the logger (`""`: the root logger) unless it has one already. A
    logger's filters, unlike its handlers, outlive the logging setup a library repeats."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())


def _run_dbt(args: list[str], database: Path | None, say: Say, threads: int) -> None:
    from dbt.cli.main import dbtRunner

    add_filter_once("stdout_log", _QuietInterruption)  # dbt's console (set up again on every invocation)

    if database is not None:
        os.environ["INCENTIVES_DUCKDB_PATH"] = str(database)
    os.environ["INCENTIVES_THREADS"] = str(threads)
    failures: list[str] = []
    done = [0]

    def on_event(event: object) -> None:
        info = getattr(event, "info", None)
        if info is None or info.name != "NodeFinished":
            return
        node = event.data.node_info  # type: ignore[attr-defined]
        done[0] += 1
        status = node.node_status
        if status in ("error", "fail", "runtime error"):
            message = getattr(getattr(event.data, "run_result", None), "message", "") or status  # type: ignore[attr-defined]
            failures.append(f"{node.resource_type} {node.node_name}: {message}")
        say(f"    [{done[0]:>3}] {node.resource_type:<10} {node.node_name:<40} {status}")

    base = ["--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR / "profiles"),
            "--quiet", "--no-use-colors"]
    try:
        result = dbtRunner(callbacks=[on_event]).invoke([*args, *base])
    finally:
        _release_dbt_database()
    if isinstance(result.exception, KeyboardInterrupt):  # dbt cancelled its queries on Ctrl-C
        raise KeyboardInterrupt
    if not result.success:
        detail = "\n  - ".join(failures) if failures else str(result.exception or "see logs/dbt.log")
        raise RunError(f"dbt {args[0]} failed; the previous results are unchanged:\n  - {detail}")


def load_and_validate(con: Any, data_dir: Path, skip_invalid_rows: bool = False, database: str = ":memory:",
                      dbt_vars: dict[str, Any] | None = None) -> tuple[dict[str, int], dict[str, Source]]:
    """load_inputs, then validate_inputs (which raises DataError listing every problem, or with
    `skip_invalid_rows` moves the rows with problems into raw.rejected_rows): the row counts
    (of the rows kept) and where each table came from. The input checks are the dbt tests on the
    sources, compiled (compile_input_checks) while the files load: `database` is the path of
    `con`'s database (':memory:' for an in-memory one), `dbt_vars` the vars of the run's build."""
    with ThreadPoolExecutor(max_workers=1, thread_name_prefix="incentives-checks") as pool:
        checks = pool.submit(compile_input_checks, database, dbt_vars if dbt_vars is not None else run_vars(False))
        counts, sources = load_inputs(con, data_dir)
        if validate_inputs(con, sources, checks.result(), skip_invalid_rows):
            for name in counts:
                counts[name] = con.execute(f"select count(*) from raw.{name}").fetchone()[0]
    return counts, sources


def _load_building(building: Path, programs: Path, data_dir: Path, started_at: dt.datetime,
                   skip_invalid_rows: bool = False, unit_tests: bool = False) -> tuple[dict[str, int], RunInputs, str]:
    """Load and validate the input files into the new database file and give it the run's id:
    the row counts, the inputs' hashes and the run id."""
    con = duckdb.connect(str(building))
    try:
        counts, sources = load_and_validate(con, data_dir, skip_invalid_rows, str(building), run_vars(unit_tests))
        inputs = RunInputs.of(programs, {name: src.path for name, src in sources.items()})
        run_id = inputs.run_id(started_at)
        con.execute(run_context_sql(run_id))
        con.execute("checkpoint")
    finally:
        con.close()
    return counts, inputs, run_id


def run(programs: Path, data_dir: Path, database: Path | None, say: Say = _say, threads: int = 1,
        unit_tests: bool = False, target: str = "duckdb", wait: float | None = None,
        skip_invalid_programs: bool = False, skip_invalid_rows: bool = False) -> Summary:
    """Compile, load, build into a new file and atomically replace `database` on success.

    The run holds the lock of `database` (compiler/locks.py) from before it touches anything
    until it is done; `wait`: seconds to wait for another run's lock (None: fail at once).
    `skip_invalid_programs`, `skip_invalid_rows`: leave out the programs or input rows with
    problems (listed in the tables rejected_programs, rejected_rows and in the summary) instead
    of refusing the run.
    `target` postgres or spark: the same on that profile target (compiler/engines.py), which
    builds into fresh schemas and swaps them in; `database` is not used."""
    if target != "duckdb":
        from .engines import run_target

        return run_target(target, programs, data_dir, say=say, threads=threads, unit_tests=unit_tests, wait=wait,
                          skip_invalid_programs=skip_invalid_programs, skip_invalid_rows=skip_invalid_rows)
    assert database is not None, "a DuckDB run needs a database file"
    from .locks import duckdb_lock

    database = database.resolve()
    database.parent.mkdir(parents=True, exist_ok=True)
    with duckdb_lock(database).acquire(wait) as lock:
        if lock.previous_owner:
            say(f"Taking over the lock of an ended run ({lock.previous_owner}); removing what it left")
        return _run_locked(programs, data_dir, database, say, threads, unit_tests, skip_invalid_programs,
                           skip_invalid_rows)


def _run_locked(programs: Path, data_dir: Path, database: Path, say: Say, threads: int,
                unit_tests: bool, skip_invalid_programs: bool, skip_invalid_rows: bool) -> Summary:
    started_at = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    phase = PhaseTimer()

    building = database.with_name(database.name + ".building")
    rules_dir = database.with_name(database.name + ".rules")
    for path in (building, Path(str(building) + ".wal")):  # what a killed run left (we hold the lock)
        if path.exists():
            path.unlink()
    try:
        say(f"Compiling {programs}")
        say(f"Loading {data_dir}")
        (counts, inputs, run_id), rejected = compile_alongside(
            programs, rules_dir, say, phase, "load",
            lambda: _load_building(building, programs, data_dir, started_at, skip_invalid_rows, unit_tests),
            skip_invalid_programs)
        say("  " + ", ".join(f"{name} {n:,}" for name, n in counts.items()))
        say(f"  run id {run_id}")
        con = duckdb.connect(str(building))
        try:  # the rule tables where dbt's seeds go; the build leaves the seeds out and tests the tables
            load_rule_tables(con, rules_dir, "main" + RULES_SCHEMA_SUFFIX)
        finally:
            con.close()
        phase("rules")
        say("Building (dbt build)")
        args = ["build", "--vars", json.dumps(run_vars(unit_tests)), *build_selection(unit_tests)]
        run_dbt(args, building, say, threads)
        phase("build")
        record_run(building, database, run_id, started_at, inputs, counts, threads, rejected)
        phase("record")
        os.replace(building, database)
        phase("swap")
    finally:
        for path in (building, Path(str(building) + ".wal")):
            if path.exists():
                path.unlink()
        shutil.rmtree(rules_dir, ignore_errors=True)
    summary = summarize(database)
    phase("summary")
    summary.phases = phase.done()
    say(f"Done in {summary.phases['total']:.1f}s: results in {database} "
        f"(tables {', '.join(RESULT_TABLES)})")
    return summary


if __name__ == "__main__":  # pragma: no cover
    sys.exit("use the `incentives` command")
