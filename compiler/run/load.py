"""Loading a run's inputs: the input files (CSV or Parquet) into DuckDB with a `_row` number, checked
by validate_data.py, and the compiled rule tables (the seeds' CSVs) into DuckDB; the programs
compiled while the inputs load (`compile_alongside`)."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Callable, TypeVar

import duckdb

from ..compile.programs import RejectedProgram, compile_programs
from ..errors import DataError, FilePlace, IncentivesError, IssueCollector
from .build import find_input, run_vars
from .progress import PhaseTimer, Say
from .sql import sql_string
from .validate_data import Source, compile_input_checks, validate_inputs

INPUT_COLUMNS: dict[str, tuple[str, ...]] = {
    "transactions": ("transaction_id", "entity_id", "transaction_type", "transaction_date", "sku_key",
                     "quantity", "uom_key", "amount"),
    "products": ("sku_key", "brand_key"),
    "properties": ("level", "entity_id", "transaction_id", "key", "value"),
    "waivers": ("program_key", "qualification_key", "offer_key", "entity_id"),
    "prices": ("sku_key", "price", "start_date", "end_date"),
    "enrollments": ("entity_id", "program_key"),
    # the what-if scenarios (docs/scenarios.md), optional: their vars are on when their file is there
    "scenarios": ("scenario_id", "entity_id", "transaction_id", "transaction_type", "transaction_date", "sku_key",
                  "quantity", "uom_key", "amount"),
    "scenario_properties": ("scenario_id", "level", "entity_id", "key", "value"),
}

REQUIRED_INPUTS = ("transactions", "products")

# Stored without compression: transaction_id is unique by contract, so DuckDB's dictionary/FSST
# compression costs a quarter of the load's CPU time for it alone (10M Parquet rows: 5.0 s instead
# of 6.6 s) and saves little (the database file is ~100 MB larger without it).
UNCOMPRESSED_COLUMNS: dict[str, tuple[str, ...]] = {"transactions": ("transaction_id",)}


def load_inputs(con: Any, data_dir: Path, schema: str = "raw") -> tuple[dict[str, int], dict[str, Source]]:
    """Load every input file into `schema` with a `_row` number (optional tables empty when absent).

    Returns the row counts and where each loaded table came from.
    """
    issues = IssueCollector()
    if not data_dir.is_dir():
        issues.add(FilePlace(str(data_dir)), "data folder not found", str(data_dir), "a folder with transactions and products files")
        raise DataError("Input data cannot be loaded", issues.issues)
    con.execute(f"create schema if not exists {schema}")
    counts: dict[str, int] = {}
    sources: dict[str, Source] = {}
    for name, columns in INPUT_COLUMNS.items():
        path = find_input(data_dir, name)
        if path is None:
            if name in REQUIRED_INPUTS:
                issues.add(FilePlace(f"{data_dir}/{name}.csv"), "required input file is missing", None,
                           f"{name}.csv or {name}.parquet")
                continue
            cols = ", ".join(f'"{c}" varchar' for c in columns)
            con.execute(f"create table {schema}.{name} (_row bigint, {cols})")
            counts[name] = 0
            continue
        if path.suffix == ".csv":
            reader = f"read_csv({sql_string(str(path))}, header = true, all_varchar = true)"
            row_number = "row_number() over ()"
        else:  # the row number Parquet keeps costs nothing, a window over millions of rows does
            reader = f"read_parquet({sql_string(str(path))}, file_row_number = true)"
            row_number = "file_row_number + 1"
        try:
            types = {r[0]: r[1] for r in con.execute(f"describe select * from {reader}").fetchall()}
            missing = [c for c in columns if c not in types]
            if missing:
                issues.add(FilePlace(str(path)), "missing required column" + ("s" if len(missing) > 1 else ""),
                           ", ".join(missing), "columns " + ", ".join(columns))
                continue
            ddl = ", ".join(f'"{c}" {types[c]}' + (" using compression uncompressed"
                                                   if c in UNCOMPRESSED_COLUMNS.get(name, ()) else "")
                            for c in columns)
            con.execute(f"create table {schema}.{name} (_row bigint, {ddl})")
            select = ", ".join(f'"{c}"' for c in columns)
            con.execute(f"insert into {schema}.{name} select {row_number}, {select} from {reader}")
        except duckdb.Error as exc:
            issues.add(FilePlace(str(path)), "file cannot be read", str(exc).splitlines()[0],
                       f"a {path.suffix[1:]} file with a header row")
            continue
        counts[name] = con.execute(f"select count(*) from {schema}.{name}").fetchone()[0]
        sources[name] = Source(name, path)
    if issues.errors:
        raise DataError("Input data cannot be loaded", issues.issues)
    return counts, sources


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


RULES_SCHEMA_SUFFIX = "_rules"  # the seeds' schema (dbt_project.yml `+schema: rules`)

def rule_csv_reader(path: Path, typed: bool = True) -> str:
    """DuckDB SQL reading one compiled rule table (a seed CSV): with the declared column types, or
    every column as text (`typed=False`, to copy to another engine exactly as written)."""
    from ..rule_tables import BY_NAME, CATALOGUE, CATALOGUE_COLUMNS, CATALOGUE_HASH, KINDS, TEXT, Column, table_of_seed

    if not typed:
        return f"read_csv({sql_string(str(path))}, header = true, quote = '\"', escape = '\"', all_varchar = true)"
    table = table_of_seed(path.stem)
    columns = (CATALOGUE_COLUMNS if table == CATALOGUE else
               BY_NAME[table].columns + (Column(CATALOGUE_HASH, "text", ""),))
    kinds = {**KINDS, TEXT: "varchar"}  # the seeds' column types, on DuckDB
    types = ", ".join(f"'{c.name}': '{kinds[c.kind]}'" for c in columns)
    return (f"read_csv({sql_string(str(path))}, header = true, quote = '\"', escape = '\"', "
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


# ----------------------------------------------------------------------------- a run's compile step

T = TypeVar("T")


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
