"""Input data validation: every problem that stops a calculation, located by file, row and column.

The checks are defined once, as the dbt data tests on the sources (models/staging/*/_<input>.yml,
macros/tests/input_checks.sql), which `dbt build` alone runs on the inputs in the warehouse. For
`incentives run`, `compile_input_checks` has dbt compile those same tests (no connection: only
their SQL) against the DuckDB database the files are loaded into, and `validate_inputs` runs them
there: each test returns its failing rows with the value to show and the `_row` the load gave each
row, so every problem is located by file, row, CSV line and column; a few examples per check, then
how many more, every check at once in one DataError. What a problem is called is the test's `meta`
(`problem`, `expected`) or the default for its test below.

Only what dbt cannot check stays in Python (compiler/run/load.py load_inputs): a missing file or
column, a file that cannot be read. Problems that do not stop a calculation (unknown SKUs, uom
mismatches, names that match nothing) are warnings computed by the dbt model `run_warnings`.

The same `dbt compile` also compiles the data tests of the rule tables (the seeds' properties file
written from compiler/rule_tables.py): on DuckDB `incentives run` runs them on the rule tables it
loaded, in one query (`check_rule_tables`), and leaves them out of its `dbt build`
(compiler/run/build.py), where each would be a node of its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ..errors import DataError, FilePlace, Issue, RunError, show
from .record import rejected_table_ddl
from .sql import sql_string

EXAMPLES_PER_CHECK = 5

# what a failing test is called when its `meta` does not say: (problem, expected), with
# {column} and {values} (accepted_text's values) filled in
WORDS: dict[str, tuple[str, str]] = {
    "not_empty": ("empty value", "a non-empty value"),
    "is_number": ("not a number", "a decimal number with at most 14 digits before the point"),
    "is_date": ("not a date", "an ISO date like 2026-03-01"),
    "accepted_text": ("unknown {column}", "one of {values}"),
    "unique_text": ("duplicate {column}", "each {column} once"),
    "absent_from": ("{column} already used elsewhere", "a {column} not found there"),
}
# the order the checks are reported in, within a table (then by column)
TEST_ORDER = ("not_empty", "is_number", "is_date", "accepted_text", "unique_text", "absent_from", "one_value_per_key",
              "required_when", "ends_after_start")


@dataclass(frozen=True)
class Source:
    """Where a raw table came from, to locate rows for a person."""

    table: str
    path: Path

    def at(self, row: int, column: str | None = None) -> FilePlace:
        """The place of data row `row` (counted from 1; in a CSV file the header is line 1)."""
        return FilePlace(self.path.name, row, row + 1 if self.path.suffix == ".csv" else None, column or None)


@dataclass(frozen=True)
class InputCheck:
    """One dbt data test on a source, compiled: `sql` returns the failing rows of `table`
    (`problem_value`, then every column of the row, `_row` among them in a loaded table)."""

    name: str  # the dbt test's name
    test: str  # the generic test, e.g. not_empty
    table: str
    column: str
    sql: str
    problem: str
    expected: str


@dataclass(frozen=True)
class RuleCheck:
    """One dbt data test on the compiled rule tables (the seeds' tests of _incentive_rules.yml,
    written from compiler/rule_tables.py), compiled: `sql` returns its failing rows."""

    name: str  # the dbt test's name
    sql: str
    severity: str  # error or warn, as dbt would treat a failure


def _words(test: str, column: str, kwargs: dict[str, Any], meta: dict[str, Any]) -> tuple[str, str]:
    problem, expected = WORDS.get(test, (None, None))
    problem, expected = meta.get("problem", problem), meta.get("expected", expected)
    if problem is None or expected is None:
        raise RunError(f"the input check {test} on {column} has no meta `problem` and `expected`")
    fill = {"column": column.replace("_", " ") if test == "accepted_text" else column,
            "values": ", ".join(str(v) for v in kwargs.get("values", []))}
    return problem.format(**fill), expected.format(**fill)


def compile_input_checks(database: str, dbt_vars: dict[str, Any]) -> list[InputCheck]:
    """The data tests on the sources as compiled by dbt for the DuckDB database at `database`
    (the profile's default target; ':memory:' for an in-memory one; only its name matters: dbt
    does not connect) with the inputs in the schema `raw` (the default of the var incentives_input_schema)
    under their own names. `dbt_vars`: the vars the run's build gets (the same vars keep dbt's
    partial parse). See compile_checks."""
    return compile_checks(database, dbt_vars)[0]


def compile_rule_checks(database: str, dbt_vars: dict[str, Any]) -> list[RuleCheck]:
    """The data tests of the rule tables (the seeds' tests) as compiled by dbt for the DuckDB
    database at `database`, with the rule tables where the seeds go (see compile_checks)."""
    return compile_checks(database, dbt_vars)[1]


_CACHE_FORMAT = 2  # of target/input_checks/<hash>.json: input checks and rule checks
_COMPILED: dict[str, tuple[list[InputCheck], list[RuleCheck]]] = {}


def compile_checks(database: str, dbt_vars: dict[str, Any]) -> tuple[list[InputCheck], list[RuleCheck]]:
    """The input checks (compile_input_checks) and the rule tables' checks (compile_rule_checks),
    compiled by one `dbt compile`.

    What dbt compiles is kept in target/input_checks/<hash>.json, the hash of everything it is
    compiled from (the project's files, the profile, the vars, the database path, dbt's version;
    the 16 most recent are kept): a run whose project has not changed reads it instead of starting
    dbt one more time."""
    from ..compile.write import keep_most_recent, write_atomically
    from .build import PROJECT_DIR, dbt_target_path, ensure_rule_seeds

    ensure_rule_seeds()  # the seeds' nodes (and their tests) before anything is hashed or parsed
    key = compiled_from(PROJECT_DIR, database, dbt_vars)
    if key in _COMPILED:  # this process compiled or read them already (a run reads them twice)
        return _COMPILED[key]
    cache = PROJECT_DIR / dbt_target_path() / "input_checks" / f"{key}.json"
    try:
        saved = json.loads(cache.read_text())
        if saved.get("key") == key:
            _COMPILED[key] = [InputCheck(**c) for c in saved["checks"]], [RuleCheck(**c) for c in saved["rule_checks"]]
            return _COMPILED[key]
    except (OSError, ValueError, TypeError, KeyError):
        pass
    checks, rule_checks = _COMPILED[key] = _dbt_compile_checks(PROJECT_DIR, database, dbt_vars)
    try:  # a concurrent run reads no file or the whole one
        cache.parent.mkdir(parents=True, exist_ok=True)
        write_atomically(cache, json.dumps({"key": key, "checks": [asdict(c) for c in checks],
                                            "rule_checks": [asdict(c) for c in rule_checks]}, indent=1))
        keep_most_recent(cache.parent, "*.json", _KEEP_COMPILED)
    except OSError:
        pass
    return checks, rule_checks


_KEEP_COMPILED = 16  # compiled checks kept in target/input_checks/: runs alternating vars or profiles


def compiled_from(project: Path, database: str, dbt_vars: dict[str, Any]) -> str:
    """A hash of what the compiled input checks depend on."""
    from dbt.version import __version__

    digest = hashlib.sha256(json.dumps([_CACHE_FORMAT, database, dbt_vars, __version__], sort_keys=True,
                                       default=str).encode())
    paths = [project / "dbt_project.yml", project / "profiles" / "profiles.yml", *sorted((project / "seeds").glob("*.yml"))]
    paths += sorted(p for folder in ("macros", "models") for p in (project / folder).rglob("*") if p.is_file())
    for path in paths:
        digest.update(str(path.relative_to(project)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# what `dbt compile` selects: the tests on the sources (the input checks) and the tests of the
# seeds' properties file (the rule tables' checks)
CHECKS_SELECTION = ["source:*", "test_type:data,path:seeds"]


def _dbt_compile_checks(project: Path, database: str,
                        dbt_vars: dict[str, Any]) -> tuple[list[InputCheck], list[RuleCheck]]:
    from dbt.cli.main import dbtRunner

    from ..compile.parse import gc_paused
    from .build import dbt_target_path, saved_parse_of

    os.environ["INCENTIVES_DUCKDB_PATH"] = database
    vars_text, target_path = json.dumps(dbt_vars), dbt_target_path()
    args = ["compile", "--select", *CHECKS_SELECTION, "--no-introspect", "--no-populate-cache", "--no-write-json",
            "--vars", vars_text, "--project-dir", str(project), "--profiles-dir", str(project / "profiles"),
            "--target-path", target_path, "--quiet", "--no-use-colors"]
    with gc_paused(), saved_parse_of(project / target_path, vars_text, None):
        result = dbtRunner().invoke(args)
    if not result.success:
        raise RunError(f"dbt could not compile the input checks: {result.exception or 'see logs/dbt.log'}")
    checks = []
    rule_checks = []
    for node in (r.node for r in result.result.results):
        if node.resource_type != "test":
            continue
        if not node.sources:  # a test of the seeds' properties file
            rule_checks.append(RuleCheck(node.name, node.compiled_code, str(node.config.severity).lower()))
            continue
        if node.test_metadata is None:
            continue
        test, kwargs = node.test_metadata.name, node.test_metadata.kwargs
        table = _tested_table(node.sources, kwargs)
        column = node.column_name or kwargs.get("column_name")
        problem, expected = _words(test, column, kwargs, node.config.meta or {})
        checks.append(InputCheck(node.name, test, table, column, node.compiled_code, problem, expected))
    return checks, sorted(rule_checks, key=lambda c: c.name)


def _tested_table(sources: list[list[str]], kwargs: dict[str, Any]) -> str:
    """The source table a test is on: its only source, or (a test that reads a second source, such
    as absent_from) the one its `model` argument names."""
    if len(sources) == 1:
        return sources[0][1]
    match = re.search(r"source\(\s*['\"][^'\"]+['\"]\s*,\s*['\"]([^'\"]+)['\"]\s*\)", str(kwargs.get("model", "")))
    if match is None:
        raise RunError(f"cannot tell which input a check is on: sources {sources}, model {kwargs.get('model')!r}")
    return match.group(1)


def check_rule_tables(con: Any, checks: list[RuleCheck]) -> list[str]:
    """Run the rule tables' checks (compile_rule_checks) on the rule tables loaded in `con`'s
    database, all in one query: the same tests `dbt build` runs on the seeds, without a dbt
    node each. Raises RunError naming every failing test (severity error); returns the
    warnings of the failing tests of severity warn."""
    if not checks:
        return []
    select = ", ".join(f"(select count(*) from ({c.sql}))" for c in checks)
    counts = con.execute(f"select {select}").fetchone()
    failed = [f"test {c.name}: {n} failing row{'s' if n != 1 else ''}" for c, n in zip(checks, counts)
              if n and c.severity != "warn"]
    if failed:
        raise RunError("the compiled rule tables fail their data tests (seeds/_incentive_rules.yml); nothing was "
                       "built:\n  - " + "\n  - ".join(failed))
    return [f"test {c.name}: {n} failing rows" for c, n in zip(checks, counts) if n]


def _ordered(checks: list[InputCheck], tables: dict[str, list[str]]) -> list[InputCheck]:
    """The checks of the loaded tables, in the tables' order, by test, then by column."""
    names = list(tables)

    def key(c: InputCheck) -> tuple[int, int, int]:
        columns = tables[c.table]
        return (names.index(c.table), TEST_ORDER.index(c.test) if c.test in TEST_ORDER else len(TEST_ORDER),
                columns.index(c.column) if c.column in columns else len(columns))
    return sorted((c for c in checks if c.table in tables), key=key)


def _counts(con: Any, checks: list[InputCheck]) -> list[int]:
    """How many failing rows each check has, in one query."""
    if not checks:
        return []
    select = ", ".join(f"(select count(*) from ({c.sql}))" for c in checks)
    return [int(n) for n in con.execute(f"select {select}").fetchone()]


def _issues(con: Any, c: InputCheck, source: Source, count: int) -> list[Issue]:
    """Issues for the `count` failing rows of a check: a few examples, then how many more."""
    if count == 0:
        return []
    rows = con.execute(f"select _row, problem_value from ({c.sql}) order by _row limit {EXAMPLES_PER_CHECK}").fetchall()
    issues = [Issue(source.at(r, c.column), c.problem, show(v), c.expected) for r, v in rows]
    if count > EXAMPLES_PER_CHECK:
        issues.append(Issue(FilePlace(source.path.name, column=c.column),
                            f"{c.problem}: {count - EXAMPLES_PER_CHECK} more rows like the ones above", None,
                            c.expected))
    return issues


def _reject(con: Any, c: InputCheck, source: Source) -> None:
    """Copy the failing rows of a check into raw.rejected_rows, each with its located message (as
    Issue.render gives it: where, problem, the value quoted, what was expected)."""
    csv = source.path.suffix == ".csv"
    where = f"{sql_string(source.path.name + ' row ')} || _row"
    if csv:
        where += " || ' (line ' || (_row + 1) || ')'"
    where += f" || {sql_string(' column ' + c.column)}"
    got = "coalesce('; got ''' || problem_value || '''', '')"
    con.execute(
        f"insert into raw.rejected_rows select {sql_string(c.table)}, {sql_string(source.path.name)}, _row,"
        f" {'_row + 1' if csv else 'null'}, {sql_string(c.column)}, problem_value, {sql_string(c.problem)},"
        f" {sql_string(c.expected)},"
        f" {where} || {sql_string(': ' + c.problem)} || {got} || {sql_string('; expected ' + c.expected)}"
        f" from ({c.sql})")


def validate_inputs(con: Any, sources: dict[str, Source], checks: list[InputCheck],
                    skip_invalid: bool = False) -> int:
    """Run the input checks (compile_input_checks) on the tables loaded from `sources` (in the
    schema raw of `con`, the database they were compiled for); raise one DataError listing every
    problem.

    `skip_invalid`: the rows with problems are moved out of their tables into raw.rejected_rows
    instead (always created, empty when nothing was left out); returns how many problems it
    holds. Every check runs on the tables as loaded, before any row is left out."""
    # raw.rejected_rows: the input rows left out by skip_invalid, one row per problem (a row with
    # two problems has two); empty otherwise
    con.execute(rejected_table_ddl("rejected_rows", "raw"))
    columns: dict[str, list[str]] = {}
    for table, column in con.execute(
            "select table_name, column_name from duckdb_columns() where database_name = current_database()"
            " and schema_name = 'raw' order by table_name, column_index").fetchall():
        columns.setdefault(table, []).append(column)
    checks = _ordered(checks, {name: columns.get(name, []) for name in sources})
    issues: list[Issue] = []
    found: list[InputCheck] = []
    for c, count in zip(checks, _counts(con, checks)):
        issues += _issues(con, c, sources[c.table], count)
        if count:
            found.append(c)
    if issues and not skip_invalid:
        raise DataError("The input data has problems; nothing was built", issues)
    for c in found:
        _reject(con, c, sources[c.table])
    for table in sorted({c.table for c in found}):
        con.execute(f"delete from raw.{table} where _row in"
                    f" (select file_row from raw.rejected_rows where table_name = {sql_string(table)})")
    return int(con.execute("select count(*) from raw.rejected_rows").fetchone()[0])
