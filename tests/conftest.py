import importlib.util
import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The engine tests build into their own PostgreSQL schema and their own Spark metastore and
# warehouse (a temporary folder), and their own databases of the Spark Thrift server, never into what
# `incentives run --target ...` left for a person. One schema per pytest process, so that test runs
# sharing a server do not meet, nor the workers of one run (`pytest -n`): a worker inherits the
# environment of the process that started it, so a name that process made is made anew.


def _own(var: str, make) -> str | None:
    """This process's own value of `var` (made by `make`), unless the caller set one: None then."""
    made = os.environ.get(f"{var}_MADE_BY_TESTS")
    if os.environ.get(var) and os.environ.get(var) != made:
        return None
    value = make()
    os.environ[var] = os.environ[f"{var}_MADE_BY_TESTS"] = value
    return value


_PG_SCHEMA = _own("INCENTIVES_PG_SCHEMA", lambda: f"incentives_test_{os.getpid()}")
_SPARK_THRIFT_SCHEMA = _own("INCENTIVES_SPARK_THRIFT_SCHEMA", lambda: f"incentives_test_{os.getpid()}")
_SPARK_DIR = _own("INCENTIVES_SPARK_DIR", lambda: tempfile.mkdtemp(prefix="incentives-spark-tests-"))
# `incentives run`'s dbt folder (its saved parse and compiled checks) per worker, not the project's
# target/: dbt keeps one saved parse per folder and parses the whole project again when the target
# or the vars differ, so workers on different engines sharing one would parse again on most runs
_DBT_TARGET = _own("INCENTIVES_DBT_TARGET_PATH", lambda: f"target/tests-{os.environ.get('PYTEST_XDIST_WORKER', 'main')}")

# --------------------------------------------------------------------------- time per engine
# Every test parametrized with `engine` (or named after one) counts for that engine; the rest
# (compiler, dbt unit tests, bad inputs, robustness, ...) run on DuckDB only.

_ENGINE_TIME: dict[str, float] = defaultdict(float)
_ENGINE_TESTS: dict[str, int] = defaultdict(int)
_STARTED = time.perf_counter()


def _engine_of(item) -> str:
    callspec = getattr(item, "callspec", None)
    if callspec is not None:
        for key in ("engine", "target"):
            if key in callspec.params:
                return str(callspec.params[key])
    for engine in ("postgres", "spark_thrift", "spark"):
        if engine in item.nodeid:
            return engine
    return "duckdb (all other tests)"


def pytest_sessionstart(session):
    """The compiled example in seeds/ when it holds no rule seeds (a fresh clone: seeds/ is not
    committed), for the tests that run dbt on this repository's project itself."""
    if not (ROOT / "seeds" / "incentives__catalogue.csv").exists():
        from compiler.compile.programs import compile_text
        from compiler.compile.write import write_rules

        programs = ROOT / "examples" / "programs.json"
        rules, _ = compile_text(programs.read_text(), str(programs))
        write_rules(rules, ROOT / "seeds", str(programs))


# Side by side (`pytest -n N --dist loadscope`, as `make test` runs them): the tests of Spark
# in-process go in two groups of about equal time, each on one worker (one JVM and one metastore per
# worker: a worker makes its own INCENTIVES_SPARK_DIR), and those of the Thrift server share one (one
# small cluster: its tests would queue behind each other there anyway); the other tests go by module
# and engine, so that a module's fixtures are built once per engine. The Spark groups, the longest,
# are handed out first.
_SPARK_FIRST_HALF = ("tests/test_differential.py", "tests/test_dbt_package.py", "tests/test_exact_money.py",
                     "tests/test_reconciliation.py")
_ONE_WORKER = ("spark:1", "spark:2", "spark_thrift")


def _group_of(nodeid: str) -> str:
    """The group of workers' scheduling a test belongs to, from its id alone (the scheduler sees ids)."""
    engine = next((e for e in ("spark_thrift", "postgres", "spark") if e in nodeid), "duckdb")
    module = nodeid.split("::")[0]
    if engine == "spark":
        return "spark:1" if module in _SPARK_FIRST_HALF else "spark:2"
    return engine if engine in _ONE_WORKER else f"{module}:{engine}"


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        item.user_properties.append(("engine", _engine_of(item)))
    first = {engine: rank for rank, engine in enumerate(_ONE_WORKER)}
    items.sort(key=lambda item: first.get(_group_of(item.nodeid), len(first)))  # stable: else as collected


if importlib.util.find_spec("xdist") is not None:
    def pytest_xdist_make_scheduler(config, log):
        from xdist.scheduler import LoadScopeScheduling

        class EngineGroups(LoadScopeScheduling):
            """loadscope with the groups of _group_of, in the order collected (Spark's first)."""

            def _split_scope(self, nodeid: str) -> str:
                return _group_of(nodeid)

        config.option.loadscopereorder = False
        return EngineGroups(config, log)


def pytest_runtest_logreport(report):
    engine = dict(report.user_properties).get("engine", "duckdb (all other tests)")
    _ENGINE_TIME[engine] += report.duration
    if report.when == "call":
        _ENGINE_TESTS[engine] += 1


def pytest_terminal_summary(terminalreporter):
    if not _ENGINE_TIME:
        return
    terminalreporter.section("time per engine")
    for engine, seconds in sorted(_ENGINE_TIME.items(), key=lambda kv: -kv[1]):
        terminalreporter.write_line(f"  {engine:<26} {seconds:8.1f}s  ({_ENGINE_TESTS[engine]} tests)")
    terminalreporter.write_line(f"  {'total (wall)':<26} {time.perf_counter() - _STARTED:8.1f}s")
    terminalreporter.write_line(f"  engines: {os.environ.get('INCENTIVES_ENGINES', 'duckdb,postgres,spark,spark_thrift')}")


def pytest_sessionfinish(session, exitstatus):
    if _SPARK_DIR:
        shutil.rmtree(_SPARK_DIR, ignore_errors=True)
    if _SPARK_THRIFT_SCHEMA and "spark_thrift" in os.environ.get("INCENTIVES_ENGINES", "spark_thrift"):
        _drop_thrift_databases(_SPARK_THRIFT_SCHEMA)
    if _PG_SCHEMA and "postgres" in os.environ.get("INCENTIVES_ENGINES", "postgres"):
        try:
            from compiler.targets.warehouse import connect

            warehouse = connect("postgres")
        except Exception:  # no server: nothing was created
            return
        try:
            prefix = _PG_SCHEMA.replace("_", "\\_") + "\\_%"
            for (schema,) in warehouse.fetch("select schema_name from information_schema.schemata"
                                             f" where schema_name = '{_PG_SCHEMA}' or schema_name like '{prefix}'"):
                warehouse.drop_schema(schema)
        finally:
            warehouse.close()


def _drop_thrift_databases(prefix: str) -> None:
    """Drop the databases this session created on the Spark Thrift server (`prefix`, `prefix_*`)."""
    try:
        from compiler.targets.warehouse import connect

        warehouse = connect("spark_thrift")
    except Exception:  # no server: nothing was created
        return
    try:
        for (name,) in warehouse.fetch("show databases"):
            if name == prefix or name.startswith(prefix + "_"):
                warehouse.drop_schema(name)
    finally:
        warehouse.close()


@pytest.fixture
def python_sigint():
    """Python's own Ctrl-C handler (KeyboardInterrupt) for a test that sends this process SIGINT.

    A process started in the background by a shell without job control inherits SIGINT ignored,
    and Python then installs no handler of its own: such a test's os.kill would do nothing."""
    import signal

    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
