"""`incentives run --target postgres|spark|spark_thrift` end to end, on the example: the same summary and the same
rows as on DuckDB in every result table, the runs history, a failed run that leaves the previous
results as they were, and the dbt unit tests on PostgreSQL and Spark (`dbt build` alone against
tables of one's own: tests/test_dbt_package.py). The Spark Thrift server's own cases (a build that
fails on the server, `dbt build` alone against tables created through it) are in
tests/test_spark_thrift.py.

The engines come from INCENTIVES_ENGINES (tests/harness.py): an engine listed there must work.
"""

from __future__ import annotations

import json
import os
import re
import signal
from decimal import Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import duckdb

from compiler.targets import postgres as postgres_target
from compiler.targets import warehouse as warehouse_target
from compiler.cli import main
from compiler.errors import RunError
from compiler.run.build import PROJECT_DIR, run_dbt
from compiler.run.load import load_inputs
from compiler.run.record import RESULT_TABLES
from compiler.targets.spark import RESULT_FOLDERS
from compiler.targets.warehouse import SCHEMA_SUFFIXES, connect, target_settings
from tests.harness import ENGINES, engine_params, normalized, read_results, read_tables

EXAMPLES = PROJECT_DIR / "examples"
TABLES = (*RESULT_TABLES, "stack_coverage", "run_warnings")
OTHER_ENGINES = engine_params(("postgres", "spark", "spark_thrift"))
# the dbt unit tests check the engine's SQL: the Thrift server runs the same spark__ macros as Spark in-process
UNIT_TEST_ENGINES = engine_params(("postgres", "spark"))


def _summary(out: str) -> list[str]:
    """The summary lines of `incentives run`, without the timings."""
    lines = out[out.index("Summary"):].splitlines()
    return [line for line in lines if not line.strip().startswith("timings")]


def _rows(tables: dict[str, list[dict[str, Any]]]) -> dict[str, list]:
    return {name: normalized([{k: v for k, v in row.items() if k != "run_id"} for row in rows])
            for name, rows in tables.items()}


@pytest.fixture(scope="module")
def duckdb_example(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[str], dict[str, list]]:
    """The example on DuckDB: summary lines and every result table."""
    import io
    from contextlib import redirect_stdout

    database = tmp_path_factory.mktemp("duck") / "example.duckdb"
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(["run", "--programs", str(EXAMPLES / "programs.json"), "--data", str(EXAMPLES / "data"),
                     "--database", str(database)]) == 0
    return _summary(out.getvalue()), _rows(read_results(database, TABLES))


def _rows_so_far(engine: str, table: str) -> list[dict[str, Any]]:
    """The rows of `table` of the engine's results; none before its first run."""
    try:
        return read_tables(engine, (table,))[table]
    except Exception:  # no such table yet
        return []


def _orphan_results_folder(engine: str) -> Path | None:
    """On Spark, a table folder as a run killed in its swap leaves it (moved, not yet declared):
    the next swap removes it."""
    if not engine.startswith("spark"):
        return None
    warehouse = connect(engine)
    try:
        schema = target_settings(engine)["schema"]
        warehouse.create_schema(schema)
        database = warehouse.local_folder("database", schema)
    finally:
        warehouse.close()
    assert database is not None
    orphan = database / RESULT_FOLDERS / "20000101T000000Z-00000000" / "offer_results"
    orphan.mkdir(parents=True)
    (orphan / "part-00000.parquet").write_bytes(b"left behind")
    return orphan


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_run_example_same_as_duckdb(engine: str, duckdb_example: tuple, capsys: pytest.CaptureFixture[str]) -> None:
    summary, tables = duckdb_example
    runs_before = len(_rows_so_far(engine, "runs"))
    history_before = _rows_so_far(engine, "offer_results_history")
    orphan = _orphan_results_folder(engine)
    code = main(["run", "--target", engine, "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert _summary(out) == summary
    results = read_tables(engine, (*TABLES, "runs", "offer_results_history", "accrual_changes"))
    runs, history, changes = results.pop("runs"), results.pop("offer_results_history"), results.pop("accrual_changes")
    assert _rows(results) == tables
    # the run is recorded, earlier runs are kept, and every result row carries the run id
    assert len(runs) == runs_before + 1
    last = max(runs, key=lambda r: r["run_id"])
    assert {r["run_id"] for r in results["offer_results"]} == {last["run_id"]}
    assert json.loads(last["row_counts"])["potential_earnings"] == len(results["potential_earnings"])
    # the history keeps every earlier run's rows and gains this run's (the swap appends them), and
    # accrual_changes compares this run with the latest earlier one (the rows the build got)
    mine = [r for r in history if r["run_id"] == last["run_id"]]
    assert len(mine) == len(results["offer_results"])
    assert normalized([r for r in history if r["run_id"] != last["run_id"]]) == normalized(history_before)
    previous = max(history_before, key=lambda r: (r["recorded_at"], r["run_id"]))["run_id"] if history_before else None
    had = {(r["entity_id"], r["offer_key"]) for r in history_before if r["run_id"] == previous}
    assert {(r["entity_id"], r["offer_key"]): r["previous_run_id"] for r in changes if r["run_id"] == last["run_id"]} == \
        {(r["entity_id"], r["offer_key"]): previous if (r["entity_id"], r["offer_key"]) in had else None for r in mine}
    # nothing of the build is left behind
    warehouse = connect(engine)
    try:
        schema = target_settings(engine)["schema"]
        leftovers = [s for s in (f"{schema}__building{x}" for x in SCHEMA_SUFFIXES) if warehouse.schema_exists(s)]
        assert leftovers == []
        if engine.startswith("spark"):
            # the swap moved the built tables' folders into the live database's folder (no rows
            # copied), and removed the folders of the tables it replaced
            database = warehouse.local_folder("database", schema)
            read = {warehouse.local_folder("table", f"{schema}.{name}") for name in warehouse.tables(schema)}
            moved = database / RESULT_FOLDERS
            assert {folder for run in moved.iterdir() for folder in run.iterdir()} <= read
            assert orphan is None or not orphan.parent.exists()
            assert {warehouse.local_folder("table", f"{schema}.{name}") for name in TABLES} == \
                {moved / last["run_id"] / name for name in TABLES}
    finally:
        warehouse.close()


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_failed_build_keeps_previous_results(engine: str, duckdb_example: tuple, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = read_tables(engine, ("offer_results",))["offer_results"]
    assert before, "test_run_example_same_as_duckdb leaves results to keep"

    def failing_build(args: list[str], database: Any, say: Any, threads: int = 1) -> None:
        raise RunError("dbt build failed; the previous results are unchanged:\n  - model x: boom")

    monkeypatch.setattr(warehouse_target, "run_dbt", failing_build)
    code = main(["run", "--target", engine, "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    assert code == 1
    assert "boom" in capsys.readouterr().err
    after = read_tables(engine, ("offer_results",))["offer_results"]
    assert normalized(after) == normalized(before)
    warehouse = connect(engine)
    try:
        schema = target_settings(engine)["schema"]
        assert not any(warehouse.schema_exists(f"{schema}__building{x}") for x in SCHEMA_SUFFIXES)
    finally:
        warehouse.close()


@pytest.mark.skipif("postgres" not in ENGINES, reason="postgres is not in INCENTIVES_ENGINES")
def test_ctrl_c_while_copying_into_postgres_is_an_interruption(duckdb_example: tuple, python_sigint: None, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # psycopg2 turns a KeyboardInterrupt raised while it reads a COPY's file into QueryCanceled
    before = read_tables("postgres", ("offer_results",))["offer_results"]
    assert before, "test_run_example_same_as_duckdb leaves results to keep"

    class CtrlCWhileRead:
        """The COPY's file; Ctrl-C arrives while psycopg2 reads it."""

        def __init__(self, path: Any) -> None:
            self._fh = open(path)

        def __enter__(self) -> "CtrlCWhileRead":
            return self

        def __exit__(self, *exc: Any) -> None:
            self._fh.close()

        def read(self, size: int = -1) -> str:
            os.kill(os.getpid(), signal.SIGINT)
            return self._fh.read(size)

    monkeypatch.setattr(postgres_target, "open", CtrlCWhileRead, raising=False)
    code = main(["run", "--target", "postgres", "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    err = capsys.readouterr().err
    assert code == 130, err
    assert "error: interrupted; the previous results are unchanged" in err
    monkeypatch.undo()
    after = read_tables("postgres", ("offer_results",))["offer_results"]
    assert normalized(after) == normalized(before)
    warehouse = connect("postgres")
    try:
        schema = target_settings("postgres")["schema"]
        assert not any(warehouse.schema_exists(f"{schema}__building{x}") for x in SCHEMA_SUFFIXES)
    finally:
        warehouse.close()


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_bad_data_is_refused_before_loading(engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "products.csv").write_text("sku_key,brand_key\na,b\n")
    (data / "transactions.csv").write_text(
        "transaction_id,entity_id,transaction_type,transaction_date,sku_key,quantity,uom_key,amount\n"
        "t1,e1,retailer_purchases_from_distribution,2026-03-01,a,1,gal,$10\n")
    code = main(["run", "--target", engine, "--programs", str(EXAMPLES / "programs.json"), "--data", str(data)])
    assert code == 1
    assert "transactions.csv row 1 (line 2) column amount: not a number" in capsys.readouterr().err


NODE_LINE = re.compile(r"^\s*\[\s*\d+\]\s+(?P<type>\S+)\s+(?P<name>\S+)\s+(?P<status>\S+)\s*$")


@pytest.mark.skipif("spark" not in ENGINES, reason="spark is not in INCENTIVES_ENGINES")
def test_spark_tables_leave_out_the_sessions_temporary_views() -> None:
    """The swap copies a building schema's tables: a temporary view of the in-process session (dbt
    leaves a failed node's `__dbt_tmp` view for the rest of the process) is not one of them."""
    warehouse = connect("spark")
    schema = f"{target_settings('spark')['schema']}_listing"
    try:
        warehouse.create_schema(schema)
        warehouse.execute(f"create table {schema}.kept (x int) using parquet")
        warehouse.execute("create or replace temporary view left_by_a_failed_node__dbt_tmp as select 1 as x")
        assert warehouse.tables(schema) == ["kept"]
    finally:
        warehouse.execute("drop view if exists left_by_a_failed_node__dbt_tmp")
        warehouse.drop_schema(schema)
        warehouse.close()


@pytest.mark.parametrize("engine", UNIT_TEST_ENGINES)
def test_dbt_unit_tests_pass(engine: str, tmp_path: Path) -> None:
    """The dbt unit tests (rounding, division, every qualification type and calculator) on the
    engine's own SQL. dbt reads the column types of the mocked models from the database, so every
    model is first built without rows (`dbt run --empty`) into schemas of their own."""
    schema = f"{target_settings(engine)['schema']}_unit"
    warehouse = connect(engine)
    scratch = duckdb.connect()
    dbt_vars = json.dumps({"incentives_build_schema": schema, "incentives_input_schema": f"{schema}_raw", "incentives_unit_tests": True})
    try:
        for suffix in ("", "_internal", "_raw", "_rules"):
            warehouse.drop_schema(schema + suffix)
        warehouse.create_schema(f"{schema}_raw")
        counts, _ = load_inputs(scratch, EXAMPLES / "data")
        for name in counts:
            warehouse.copy_from_duckdb(scratch, f"raw.{name}", f"{schema}_raw", name)
        run_dbt(["seed", "--target", engine, "--vars", dbt_vars], None, say=lambda _: None)
        run_dbt(["run", "--empty", "--target", engine, "--vars", dbt_vars], None, say=lambda _: None)
        lines: list[str] = []
        error: RunError | None = None
        try:
            run_dbt(["test", "--target", engine, "--select", "test_type:unit", "--vars", dbt_vars], None, say=lines.append)
        except RunError as exc:
            error = exc
    finally:
        for suffix in ("", "_internal", "_raw", "_rules"):
            warehouse.drop_schema(schema + suffix)
        warehouse.close()
        scratch.close()
    results = [m.groupdict() for m in map(NODE_LINE.match, lines) if m]
    unit = [r for r in results if r["type"] == "unit_test"]
    failed = [f"{r['name']}: {r['status']}" for r in unit if r["status"] not in ("pass", "success")]
    assert unit, f"no unit test ran: {error or lines}"
    assert not failed and error is None, f"{len(failed)} of {len(unit)} dbt unit tests failed on {engine}: {failed} {error or ''}"


@pytest.mark.parametrize("engine", engine_params())  # each engine's case runs with that engine's other tests
def test_divide_is_exact_on_every_engine(engine: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The dispatched quotient (divide, multiply_divide) rounds half away from zero exactly from an
    exact numerator, where rounding the engine's own quotient, or an operand, would round twice
    (0.004999999999999999999... -> 0.00, not 0.01; 321.875 -> 321.88, not 321.87). Each case is
    a x b x c / d with operands of at most 10 places (docs/semantics.md, "divide last")."""
    cases = [("1", "1", "1", "3", 2), ("2", "1", "1", "3", 2), ("-2", "1", "1", "3", 2), ("1", "1", "1", "-8", 2),
             ("-1", "1", "1", "8", 2), ("0.0049999999", "1", "1", "1", 2), ("0.005", "1", "1", "1", 2),
             ("1", "1", "1", "200.0000000001", 2), ("100000", "1", "1", "20000000.0000000001", 2),
             ("-100000", "1", "1", "20000000.0000000001", 2), ("99999999.99", "1", "1", "0.0001", 2),
             ("1", "1", "1", "7", 10), ("-22", "1", "1", "7", 10), ("5", "1", "1", "0", 2),
             ("0.00000000005", "1", "1", "1", 10), ("123456789.1234567890", "1", "1", "0.000001", 0),
             ("-7.5", "1", "1", "3", 0),
             # stacked: coverage x rate x overlap / set coverage, ties of the examples
             ("772.5", "1.25", "300", "900", 2), ("49.5", "1.25", "300", "900", 2), ("15.9", "1.25", "300", "900", 2),
             ("3.18", "1.25", "300", "900", 2), ("-3.18", "1.25", "300", "900", 2),
             # fixed_amount: total x value / share total, thirds, and 0.0049999999995 (a numerator rounded to 12 places would tie)
             ("100", "7", "1", "21", 2), ("0.9999999999", "0.005", "1", "1", 2),
             ("250.5", "10.0000000001", "1", "40.0000000004", 2),
             # big operands: every limb of the 128-bit path in use
             ("987654321.1234567891", "876543210.9876543219", "123456789.123", "987654321.987", 2),
             ("-987654321.1234567891", "876543210.9876543219", "123456789.123", "-987654321.987", 10),
             ("99999999999.9999999999", "999999.9999999999", "999999999.9999999999", "999999999.9999999999", 2),
             ("0.0000000001", "0.0000000001", "0.0000000001", "999999999.9999999999", 10),
             ("123456.789", "0.0000000003", "0.0009999999", "0.0000000007", 4)]

    def value(text: str) -> Fraction:
        return Fraction(Decimal(text))

    expected = [None if Decimal(d) == 0 else _round_half_away(value(a) * value(b) * value(c) / value(d), scale)
                for a, b, c, d, scale in cases]
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", ":memory:")
    got = _divide_on(engine, cases)
    assert got == expected, f"{engine}: {[(c, g, e) for c, g, e in zip(cases, got, expected) if g != e]}"


def _round_half_away(exact: Fraction, scale: int) -> Decimal:
    units = abs(exact) * 10 ** scale
    rounded = int(units) + (1 if units - int(units) >= Fraction(1, 2) else 0)
    return Decimal(rounded if exact >= 0 else -rounded).scaleb(-scale)


def _divide_on(engine: str, cases: list[tuple[str, str, str, str, int]]) -> list[Decimal | None]:
    """multiply_divide() of each case compiled by dbt for `engine` (`dbt compile --inline`) and run there."""
    from dbt.cli.main import dbtRunner

    def operand(text: str) -> str:
        return f'"cast(\'{text}\' as decimal(38,10))"'

    selects = " union all ".join(
        f"select {i} as i, cast({{{{ incentives.multiply_divide({operand(a)}, {operand(b)}, {operand(c)}, {operand(d)}, {s}) }}}}"
        " as decimal(38,10)) as q"
        for i, (a, b, c, d, s) in enumerate(cases))
    args = ["compile", "--inline", selects, "--target", engine, "--project-dir", str(PROJECT_DIR),
            "--profiles-dir", str(PROJECT_DIR / "profiles"), "--quiet"]
    result = dbtRunner().invoke(args)
    assert result.success, result.exception
    sql = result.result.results[0].node.compiled_code
    if engine == "duckdb":
        import duckdb

        rows = duckdb.connect().execute(sql).fetchall()
    else:
        warehouse = connect(engine)
        try:
            rows = warehouse.fetch(sql)
        finally:
            warehouse.close()
    return [q for _, q in sorted(rows)]
