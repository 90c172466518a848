"""`incentives run --target postgres|spark|spark_thrift` end to end, on the example: the same summary and the same
rows as on DuckDB in every result table, the runs history, a failed run that leaves the previous
results as they were, `incentives compile --target` + `dbt build --target` against tables of one's
own (the README's path for data already in the warehouse), and the dbt unit tests on PostgreSQL
and Spark. The Spark Thrift server's own cases (a build that fails on the server, `dbt build` alone
against tables created through it) are in tests/test_spark_thrift.py.

The engines come from INCENTIVES_ENGINES (tests/harness.py): an engine listed there must work.
"""

from __future__ import annotations

import json
import os
import re
import signal
from decimal import ROUND_HALF_UP, Decimal
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import duckdb

from compiler import engines
from compiler.cli import main
from compiler.compile import compile_text, write_rules
from compiler.errors import RunError
from compiler.runner import PROJECT_DIR, RESULT_TABLES, load_inputs, run_dbt
from tests.harness import ENGINES, engine_params, normalized, read_results

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


def _runs_count(engine: str) -> int:
    try:
        return len(engines.read_tables(engine, ("runs",))["runs"])
    except Exception:  # no runs table yet
        return 0


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_run_example_same_as_duckdb(engine: str, duckdb_example: tuple, capsys: pytest.CaptureFixture[str]) -> None:
    summary, tables = duckdb_example
    runs_before = _runs_count(engine)
    code = main(["run", "--target", engine, "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert _summary(out) == summary
    results = engines.read_tables(engine, (*TABLES, "runs"))
    runs = results.pop("runs")
    assert _rows(results) == tables
    # the run is recorded, earlier runs are kept, and every result row carries the run id
    assert len(runs) == runs_before + 1
    last = max(runs, key=lambda r: r["run_id"])
    assert {r["run_id"] for r in results["offer_results"]} == {last["run_id"]}
    assert json.loads(last["row_counts"])["potential_earnings"] == len(results["potential_earnings"])
    # nothing of the build is left behind
    warehouse = engines.connect(engine)
    try:
        schema = engines.target_settings(engine)["schema"]
        leftovers = [s for s in (f"{schema}__building{x}" for x in engines.SCHEMA_SUFFIXES) if warehouse.schema_exists(s)]
        assert leftovers == []
    finally:
        warehouse.close()


@pytest.mark.parametrize("engine", OTHER_ENGINES)
def test_failed_build_keeps_previous_results(engine: str, duckdb_example: tuple, tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    before = engines.read_tables(engine, ("offer_results",))["offer_results"]
    assert before, "test_run_example_same_as_duckdb leaves results to keep"

    def failing_build(args: list[str], database: Any, say: Any, threads: int = 1) -> None:
        raise RunError("dbt build failed; the previous results are unchanged:\n  - model x: boom")

    monkeypatch.setattr(engines, "run_dbt", failing_build)
    code = main(["run", "--target", engine, "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    assert code == 1
    assert "boom" in capsys.readouterr().err
    after = engines.read_tables(engine, ("offer_results",))["offer_results"]
    assert normalized(after) == normalized(before)
    warehouse = engines.connect(engine)
    try:
        schema = engines.target_settings(engine)["schema"]
        assert not any(warehouse.schema_exists(f"{schema}__building{x}") for x in engines.SCHEMA_SUFFIXES)
    finally:
        warehouse.close()


@pytest.mark.skipif("postgres" not in ENGINES, reason="postgres is not in INCENTIVES_ENGINES")
def test_ctrl_c_while_copying_into_postgres_is_an_interruption(duckdb_example: tuple, monkeypatch: pytest.MonkeyPatch,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    # psycopg2 turns a KeyboardInterrupt raised while it reads a COPY's file into QueryCanceled
    before = engines.read_tables("postgres", ("offer_results",))["offer_results"]
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

    monkeypatch.setattr(engines, "open", CtrlCWhileRead, raising=False)
    code = main(["run", "--target", "postgres", "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    err = capsys.readouterr().err
    assert code == 130, err
    assert "error: interrupted; the previous results are unchanged" in err
    monkeypatch.undo()
    after = engines.read_tables("postgres", ("offer_results",))["offer_results"]
    assert normalized(after) == normalized(before)
    warehouse = engines.connect("postgres")
    try:
        schema = engines.target_settings("postgres")["schema"]
        assert not any(warehouse.schema_exists(f"{schema}__building{x}") for x in engines.SCHEMA_SUFFIXES)
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


@pytest.mark.skipif("postgres" not in ENGINES, reason="postgres is not in INCENTIVES_ENGINES")
def test_compile_then_dbt_build_on_own_tables(tmp_path: Path, duckdb_example: tuple,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """README: data already in PostgreSQL -> `incentives compile --target postgres` + `dbt build`."""
    warehouse = engines.connect("postgres")
    schema = engines.target_settings("postgres")["schema"]
    own, rules_schema, manual = f"{schema}_own", f"{schema}_own_rules", f"{schema}_manual"
    try:
        # "their own tables": the example's inputs, typed, in a schema of their own
        warehouse.drop_schema(own)
        warehouse.create_schema(own)
        scratch = duckdb.connect()
        load_inputs(scratch, EXAMPLES / "data")
        for name in ("transactions", "products", "properties", "waivers", "prices", "enrollments"):
            warehouse.copy_from_duckdb(scratch, f"raw.{name}", own, name)
        scratch.close()
        warehouse.execute(f"alter table {own}.transactions alter column quantity type numeric(18,4) "
                          "using quantity::numeric, alter column amount type numeric(18,4) using amount::numeric, "
                          "alter column transaction_date type date using transaction_date::date")

        code = main(["compile", str(EXAMPLES / "programs.json"), "--out", str(tmp_path / "rules"),
                     "--target", "postgres", "--rules-schema", rules_schema])
        assert code == 0
        csv_rows = {p.stem: len(p.read_text().splitlines()) - 2 for p in (tmp_path / "rules").glob("*.csv")}
        assert f"Loaded {len(csv_rows)} rule tables into schema {rules_schema}" in capsys.readouterr().out
        loaded = {t: warehouse.fetch(f"select count(*) from {rules_schema}.{t}")[0][0]
                  for t in warehouse.tables(rules_schema)}
        assert loaded == csv_rows

        run_dbt(["build", "--target", "postgres", "--exclude", "test_type:unit", "--vars",
                 json.dumps({"input_schema": own, "rules_schema": rules_schema, "build_schema": manual})],
                None, say=lambda _: None)
        results = {t: warehouse.fetch_dicts(f"select * from {manual}.{t}") for t in TABLES}
        assert _rows(results) == duckdb_example[1]
    finally:
        for name in (own, rules_schema, manual, f"{manual}_internal"):
            warehouse.drop_schema(name)
        warehouse.close()


NODE_LINE = re.compile(r"^\s*\[\s*\d+\]\s+(?P<type>\S+)\s+(?P<name>\S+)\s+(?P<status>\S+)\s*$")


@pytest.mark.parametrize("engine", UNIT_TEST_ENGINES)
def test_dbt_unit_tests_pass(engine: str, tmp_path: Path) -> None:
    """The dbt unit tests (rounding, division, every qualification type and calculator) on the
    engine's own SQL. dbt reads the column types of the mocked models from the database, so every
    model is first built without rows (`dbt run --empty`) into schemas of their own."""
    schema = f"{engines.target_settings(engine)['schema']}_unit"
    rules, _ = compile_text((EXAMPLES / "programs.json").read_text(), "programs.json")
    write_rules(rules, tmp_path / "rules")
    warehouse = engines.connect(engine)
    scratch = duckdb.connect()
    dbt_vars = json.dumps({"build_schema": schema, "input_schema": f"{schema}_raw", "rules_schema": f"{schema}_rules",
                           "rules_dir": str(tmp_path / "rules")})
    try:
        for suffix in ("", "_internal", "_raw", "_rules"):
            warehouse.drop_schema(schema + suffix)
        warehouse.create_schema(f"{schema}_raw")
        counts, _ = load_inputs(scratch, EXAMPLES / "data")
        for name in counts:
            warehouse.copy_from_duckdb(scratch, f"raw.{name}", f"{schema}_raw", name)
        engines.load_rules(warehouse, tmp_path / "rules", f"{schema}_rules")
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


def test_divide_is_exact_on_every_engine(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dispatched divide() rounds half away from zero exactly, where rounding the engine's own
    quotient would round twice (e.g. 0.004999999999999999999... -> 0.00, not 0.01)."""
    cases = [("1", "3", 2), ("2", "3", 2), ("-2", "3", 2), ("1", "-8", 2), ("-1", "8", 2),
             ("0.0049999999999", "1", 2), ("0.005", "1", 2), ("1", "200.000000000001", 2),
             # 0.005 - 2.5e-22: a quotient rounded to 18 places first (Spark's) would pay 0.01
             ("100000", "20000000.000000000001", 2), ("-100000", "20000000.000000000001", 2),
             ("99999999.99", "0.0001", 2), ("1", "7", 10), ("-22", "7", 10), ("5", "0", 2),
             ("0.00000000005", "1", 10), ("123456789.123456789012", "0.000001", 0), ("-7.5", "3", 0)]
    def operand(text: str) -> Fraction:  # operands are rounded to 12 places first (docs/semantics.md)
        return Fraction(Decimal(text).quantize(Decimal("1e-12"), rounding=ROUND_HALF_UP))

    expected = [None if Decimal(d) == 0 else _round_half_away(operand(n) / operand(d), scale) for n, d, scale in cases]
    monkeypatch.setenv("INCENTIVES_DUCKDB_PATH", ":memory:")
    for engine in ENGINES:
        got = _divide_on(engine, cases)
        assert got == expected, f"{engine}: {list(zip(cases, got, expected))}"


def _round_half_away(exact: Fraction, scale: int) -> Decimal:
    units = abs(exact) * 10 ** scale
    rounded = int(units) + (1 if units - int(units) >= Fraction(1, 2) else 0)
    return Decimal(rounded if exact >= 0 else -rounded).scaleb(-scale)


def _divide_on(engine: str, cases: list[tuple[str, str, int]]) -> list[Decimal | None]:
    """divide() of each case compiled by dbt for `engine` (`dbt compile --inline`) and run there."""
    from dbt.cli.main import dbtRunner

    selects = " union all ".join(
        f"select {i} as i, cast({{{{ incentives.divide(\"cast('{n}' as decimal(38,12))\", \"cast('{d}' as decimal(38,12))\", {s}) }}}}"
        " as decimal(38,12)) as q"
        for i, (n, d, s) in enumerate(cases))
    args = ["compile", "--inline", selects, "--target", engine, "--project-dir", str(PROJECT_DIR),
            "--profiles-dir", str(PROJECT_DIR / "profiles"), "--quiet", "--vars", json.dumps({"rules_dir": "rules"})]
    result = dbtRunner().invoke(args)
    assert result.success, result.exception
    sql = result.result.results[0].node.compiled_code
    if engine == "duckdb":
        import duckdb

        rows = duckdb.connect().execute(sql).fetchall()
    else:
        warehouse = engines.connect(engine)
        try:
            rows = warehouse.fetch(sql)
        finally:
            warehouse.close()
    return [q for _, q in sorted(rows)]
