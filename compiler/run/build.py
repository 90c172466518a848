"""The build: `dbt build` in-process on the run's target, with the run's vars and selection."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ..errors import RunError
from ..compile.parse import gc_paused
from ..compile.write import SEEDS_YAML, write_failed_compile
from .progress import Say

PROJECT_DIR = Path(__file__).resolve().parent.parent.parent
# The dbt vars `incentives run` passes besides the schemas: the same on every run, so
# dbt reuses its partial parse (target/partial_parse.msgpack) instead of re-parsing the project
# (vars that change, such as a run id, force a full parse). The run id is data: the one row of
# the table run_context in the input schema, read by macros/run_id.sql.
RUN_CONTEXT_VARS: dict[str, Any] = {"incentives_run_context": True}


DEFAULT_TARGET = "duckdb"  # the profile's default target (profiles/profiles.yml) and `--target`'s default


def dbt_target_path(target: str | None = None) -> str:
    """dbt's target folder for the run's dbt commands (its artifacts, its saved parse and the
    compiled input checks), relative to the project: `INCENTIVES_DBT_TARGET_PATH`, default `target`,
    and in it a folder of its own for each other profile target (`target/spark`, ...). dbt keeps one
    saved parse per folder and parses the whole project again when the target or the vars differ
    from the saved one's: runs that alternate targets (a warehouse run, whose input checks compile
    on DuckDB, then a DuckDB run) reuse each target's own parse, and runs side by side on different
    targets (the test suite's workers) keep one folder each."""
    base = os.environ.get("INCENTIVES_DBT_TARGET_PATH", "target")
    return base if target in (None, DEFAULT_TARGET) else f"{base}/{target}"


# dbt keeps one saved parse per target folder (partial_parse.msgpack) and parses the whole project
# again when the vars differ from the saved one's. The commands of `incentives run` come with a few
# sets of vars (with or without statements, scenarios, the forecast's vars, unit tests; the input
# checks' compile): each set keeps its own saved parse in the folder's parses/, the most recent few.
SAVED_PARSES = "parses"
KEPT_PARSES = 8


@contextmanager
def saved_parse_of(target_dir: Path, dbt_vars: str, target: str | None) -> Iterator[None]:
    """The saved parse of the vars `dbt_vars` (a JSON text) and the `--target` given (what dbt's
    check of the vars hashes) is put in place in `target_dir` before dbt runs, and kept under
    parses/ after it ran if dbt wrote a new one. Each file is replaced whole (a run beside this one
    reads the old one or the new one); a saved parse dbt cannot use (another profile) makes it
    parse again, as it would without this."""
    from ..compile.write import keep_most_recent, write_atomically

    saved = target_dir / "partial_parse.msgpack"
    dbt_vars = json.dumps(json.loads(dbt_vars or "{}"), sort_keys=True)  # every caller's --vars is JSON
    key = hashlib.sha256(f"{dbt_vars}\n{target}".encode()).hexdigest()[:16]
    kept = target_dir / SAVED_PARSES / f"{key}.msgpack"
    if kept.exists():
        parse = kept.read_bytes()
        if not saved.exists() or saved.stat().st_size != len(parse) or saved.read_bytes() != parse:
            write_atomically(saved, parse)
    before = _stamp(saved)
    try:
        yield
    finally:
        if saved.exists() and _stamp(saved) != before:
            kept.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(kept, saved.read_bytes())
            keep_most_recent(kept.parent, "*.msgpack", KEPT_PARSES)


def _stamp(path: Path) -> tuple[int, int]:
    try:
        stat = path.stat()
    except FileNotFoundError:
        return (0, 0)
    return (stat.st_mtime_ns, stat.st_size)


def _target_of(args: list[str]) -> str | None:
    """The profile target a dbt command names (`--target NAME`), None for the default."""
    return args[args.index("--target") + 1] if "--target" in args[:-1] else None


def ensure_rule_seeds(project: Path = PROJECT_DIR) -> None:
    """The rule seeds (`incentives__<table>`) in the project's seeds/ when there are none yet (a fresh
    clone: they are not committed): the tables of a failed compile, headers only. `incentives run`
    loads its own compile where the seeds go and leaves the seeds out of its build, but its models
    ref them by name and their data tests run on what it loaded, so the nodes must exist; what the
    files hold does not matter to it. `dbt build` on them alone fails on last_compile_succeeded
    until `incentives compile` writes real ones."""
    from ..rule_tables import CATALOGUE, seed_name

    seeds = project / "seeds"
    if not ((seeds / SEEDS_YAML).exists() and (seeds / f"{seed_name(CATALOGUE)}.csv").exists()):
        write_failed_compile(seeds, "none (run incentives compile)")


# The optional inputs the package leaves off unless a var switches them on (a team's project
# without them builds as before): `incentives run` switches each on when its file is in --data.
SWITCHED_INPUTS: dict[str, str] = {"scenarios": "incentives_using_scenarios",
                                   "scenario_properties": "incentives_using_scenario_properties"}


def find_input(data_dir: Path, name: str) -> Path | None:
    """The input file for table `name`: DIR/name.csv or DIR/name.parquet."""
    for suffix in (".parquet", ".csv"):
        path = data_dir / f"{name}{suffix}"
        if path.exists():
            return path
    return None


def switched_inputs(data_dir: Path | None) -> dict[str, bool]:
    """The vars of SWITCHED_INPUTS whose file (DIR/<input>.csv or .parquet) is in `data_dir`, true;
    the others are left unset (off), so a run without them passes the vars it passed before."""
    if data_dir is None:
        return {}
    return {var: True for name, var in SWITCHED_INPUTS.items() if find_input(data_dir, name) is not None}


def run_vars(unit_tests: bool, statements: bool = False, data_dir: Path | None = None,
             forecast: dict[str, Any] | None = None, **schemas: str) -> dict[str, Any]:
    """The dbt vars of `incentives run`: the schemas, the run context, unit tests when asked for,
    `incentives_using_statements` when vendor statements were loaded (docs/reconciliation.md), the
    switched inputs found in `data_dir` (SWITCHED_INPUTS: the what-if scenarios, docs/scenarios.md),
    the forecast's vars when asked for, without its dates: those are in run_context (record.FORECAST_DATES),
    so that a run with other dates reuses the saved parse (docs/forecast.md)."""
    from .record import FORECAST_DATES

    return {**schemas, **RUN_CONTEXT_VARS, **({"incentives_unit_tests": True} if unit_tests else {}),
            **({"incentives_using_statements": True} if statements else {}), **switched_inputs(data_dir),
            **{var: value for var, value in (forecast or {}).items() if var not in FORECAST_DATES}}


# The reconciliation's nodes (the statements' staging, its intermediate model, its marts and their
# tests): built only when statements were loaded (`run --statements`, `import-statements`).
RECONCILIATION_PATHS = ("path:models/staging/incentives_statements", "path:models/reconciliation")


def build_selection(unit_tests: bool, rule_checks_done: bool = False, statements: bool = False) -> list[str]:
    """What `incentives run` builds: every model and data test, not the seeds (the run loaded
    its own rule tables where the seeds go; their data tests still run on them), not the staging
    data tests (validate_inputs checked the same on the files), not the models' primary-key tests
    tagged model_key (keys the SQL itself guarantees, checked by `dbt build` alone and the unit
    tests; here they would scan the largest tables again on every run), unit tests only when asked.

    `rule_checks_done`: the run has already run the seeds' data tests on the rule tables it
    loaded (validate_data.check_rule_tables, the same tests compiled by dbt, in one query), so
    the build leaves them out too. Without `statements` the reconciliation is left out (its tables
    appear once statements are loaded)."""
    exclude = ["test_type:data,path:models/staging", "tag:model_key", *(["test_type:data,path:seeds"] if rule_checks_done else []),
               *([] if statements else RECONCILIATION_PATHS)]
    return ["--select", "resource_type:model", "resource_type:test", *(["resource_type:unit_test"] if unit_tests else []),
            "--exclude", *exclude]


@contextmanager
def _in_folder(folder: Path | None) -> Iterator[None]:
    """The process's working folder is `folder` (None: unchanged) while the block runs."""
    if folder is None:
        yield
        return
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


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
    """Invoke dbt in-process against `database` (DuckDB, an absolute path: dbt opens it by its
    name from its folder; None: the target given in `args`), printing one line per finished node."""
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


# the first line of what macros/tests/failing_rows.sql prints for a failed test (dbt's print())
FAILING_ROWS = "failing rows of test "


class _FailingRowsInMessage(logging.Filter):
    """Keeps the failing rows the project's on-run-end hook prints (macros/tests/failing_rows.sql)
    off dbt's console: the run puts them into its error message instead, so they are shown once."""

    def filter(self, record: logging.LogRecord) -> bool:
        return FAILING_ROWS not in record.getMessage()


def add_filter_once(logger_name: str, kind: type[logging.Filter]) -> None:
    """Adds a `kind` filter to the logger (`""`: the root logger) unless it has one already. A
    logger's filters, unlike its handlers, outlive the logging setup a library repeats."""
    logger = logging.getLogger(logger_name)
    if not any(isinstance(f, kind) for f in logger.filters):
        logger.addFilter(kind())


def _run_dbt(args: list[str], database: Path | None, say: Say, threads: int) -> None:
    from dbt.cli.main import dbtRunner

    add_filter_once("stdout_log", _QuietInterruption)  # dbt's console (set up again on every invocation)
    add_filter_once("stdout_log", _FailingRowsInMessage)

    if database is not None:
        # the profile's path is the file's name, opened from its folder: a run's dbt sees the same
        # profile whatever the folder, so a run on a new path reuses the saved parse
        os.environ["INCENTIVES_DUCKDB_PATH"] = database.name
    # dbt's JSON artifacts (target/manifest.json, written twice, semantic_manifest.json,
    # run_results.json, graph.gpickle) are not read by the run: not written unless asked for with
    # DBT_WRITE_JSON=true (bench/run.py reads run_results.json). The saved parse
    # (target/partial_parse.msgpack) is written either way.
    artifacts = [] if "DBT_WRITE_JSON" in os.environ else ["--no-write-json"]
    ensure_rule_seeds()
    os.environ["INCENTIVES_THREADS"] = str(threads)
    failures: list[str] = []
    failed_names: list[str] = []
    failing_rows: dict[str, str] = {}  # test name -> "(what it means): N rows" and its first rows
    done = [0]

    def on_event(event: object) -> None:
        info = getattr(event, "info", None)
        if info is not None and info.name == "PrintEvent" and FAILING_ROWS in event.data.msg:  # type: ignore[attr-defined]
            name, _, rows = event.data.msg[len(FAILING_ROWS):].partition(" ")  # type: ignore[attr-defined]
            failing_rows[name] = rows
        if info is None or info.name != "NodeFinished":
            return
        node = event.data.node_info  # type: ignore[attr-defined]
        status = node.node_status
        if node.materialized == "ephemeral" and status == "success":  # inlined into its readers: nothing built
            return
        done[0] += 1
        if status in ("error", "fail", "runtime error"):
            message = getattr(getattr(event.data, "run_result", None), "message", "") or status  # type: ignore[attr-defined]
            failures.append(f"{node.resource_type} {node.node_name}: {message}")
            failed_names.append(node.node_name)
        say(f"    [{done[0]:>3}] {node.resource_type:<10} {node.node_name:<40} {status}")

    target = _target_of(args)
    target_path = dbt_target_path(target)
    base = ["--project-dir", str(PROJECT_DIR), "--profiles-dir", str(PROJECT_DIR / "profiles"),
            "--target-path", target_path, "--quiet", "--no-use-colors", *artifacts]
    dbt_vars = args[args.index("--vars") + 1] if "--vars" in args[:-1] else ""
    try:
        with _in_folder(database.parent if database is not None else None), \
                saved_parse_of(PROJECT_DIR / target_path, dbt_vars, target):
            result = dbtRunner(callbacks=[on_event]).invoke([*args, *base])
    finally:
        _release_dbt_database()
    if isinstance(result.exception, KeyboardInterrupt):  # dbt cancelled its queries on Ctrl-C
        raise KeyboardInterrupt
    if not result.success:
        # each failed test once: dbt's message, then what its failing rows mean and the first ones
        failures = [failure + "".join("\n    " + line for line in failing_rows.get(name, "").splitlines())
                    for failure, name in zip(failures, failed_names)]
        detail = "\n  - ".join(failures) if failures else str(result.exception or "see logs/dbt.log")
        raise RunError(f"dbt {args[0]} failed; the previous results are unchanged:\n  - {detail}")
