import os
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The engine tests build into their own PostgreSQL schema and their own Spark metastore and
# warehouse (a temporary folder), and their own databases of the Spark Thrift server, never into what
# `incentives run --target ...` left for a person. One schema per pytest process, so that test runs
# sharing a server do not meet.
_PG_SCHEMA = None
if not os.environ.get("INCENTIVES_PG_SCHEMA"):
    _PG_SCHEMA = f"incentives_test_{os.getpid()}"
    os.environ["INCENTIVES_PG_SCHEMA"] = _PG_SCHEMA
_SPARK_THRIFT_SCHEMA = None
if not os.environ.get("INCENTIVES_SPARK_THRIFT_SCHEMA"):
    _SPARK_THRIFT_SCHEMA = f"incentives_test_{os.getpid()}"
    os.environ["INCENTIVES_SPARK_THRIFT_SCHEMA"] = _SPARK_THRIFT_SCHEMA
_SPARK_DIR = None
if not os.environ.get("INCENTIVES_SPARK_DIR"):
    _SPARK_DIR = tempfile.mkdtemp(prefix="incentives-spark-tests-")
    os.environ["INCENTIVES_SPARK_DIR"] = _SPARK_DIR

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


def pytest_collection_modifyitems(session, config, items):
    for item in items:
        item.user_properties.append(("engine", _engine_of(item)))


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
