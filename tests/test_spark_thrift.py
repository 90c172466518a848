"""Spark as teams run it: a standalone cluster behind a Spark Thrift server (target spark_thrift,
started by scripts/start-spark-cluster.sh, which `make test` runs).

- a differential case (INCENTIVES_DIFF_EXAMPLES_SPARK_THRIFT, default 1: the first of Spark
  in-process's cases, whose SQL the server runs; what this adds is the server's load, build and
  swap): the same random programs and data on DuckDB and through the Thrift server, both equal
  to the oracle and to each other in every column (the example run is in test_engines.py; the
  tests of what the SQL computes, as the worked examples and the half-cent ties, run on
  tests/harness.SQL_ENGINES: the server runs the same spark__ SQL);
- a build that fails on the server (a damaged rule table) leaves the previous results readable;
- the README's path for data already in the warehouse: tables created through the server,
  `incentives compile` (the rule tables as seeds), then `dbt build --target spark_thrift` alone,
  with the team's own names as tests/test_dbt_package.py gives them on DuckDB and PostgreSQL (other
  table names, no enrollments table, a pass-through column): Spark's case of that test.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
from contextlib import redirect_stdout
from pathlib import Path

import duckdb
import pytest

from compiler.targets import warehouse as warehouse_target
from compiler.targets.warehouse import SCHEMA_SUFFIXES, connect, target_settings
from compiler.targets.spark_thrift import SparkThrift
from compiler.cli import main
from compiler.run.build import PROJECT_DIR
from compiler.run.load import load_inputs
from tests import test_differential
from tests.harness import ENGINES, read_tables
from tests.test_engines import EXAMPLES, TABLES, _rows, duckdb_example  # noqa: F401 (a fixture)
from tests.test_dbt_package import OWN_NAMES, PASSTHROUGH, dbt_vars

pytestmark = pytest.mark.skipif("spark_thrift" not in ENGINES, reason="spark_thrift is not in INCENTIVES_ENGINES")
ENGINE = "spark_thrift"

test_differential.ENGINE_EXAMPLES[ENGINE] = int(os.environ.get("INCENTIVES_DIFF_EXAMPLES_SPARK_THRIFT", "1"))
test_spark_thrift_agrees_with_duckdb_and_oracle = test_differential._engines_agree(ENGINE)


def _schema() -> str:
    return str(target_settings(ENGINE)["schema"])


def test_failed_build_on_the_server_keeps_previous_results(duckdb_example: tuple, monkeypatch: pytest.MonkeyPatch,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """A rule table the server cannot read (a rate that is not a number: ANSI mode fails the cast)
    fails `incentives run` inside dbt build, on the cluster; the previous results stay as they were."""
    if not _has_results():
        assert main(["run", "--target", ENGINE, "--programs", str(EXAMPLES / "programs.json"),
                     "--data", str(EXAMPLES / "data")]) == 0
    before = read_tables(ENGINE, TABLES)
    capsys.readouterr()
    original = warehouse_target.load_rule_csvs

    def damaged(scratch: duckdb.DuckDBPyConnection, rules_dir: Path, schema: str = "rules") -> list[str]:
        names = original(scratch, rules_dir, schema)
        scratch.execute(f"update {schema}.incentives__standard_rates set rate = 'three percent'")
        return names

    monkeypatch.setattr(warehouse_target, "load_rule_csvs", damaged)
    code = main(["run", "--target", ENGINE, "--programs", str(EXAMPLES / "programs.json"),
                 "--data", str(EXAMPLES / "data")])
    err = capsys.readouterr().err
    assert code == 1, err
    assert "dbt build failed; the previous results are unchanged" in err
    assert "three percent" in err and "Traceback" not in err
    monkeypatch.undo()
    assert _rows(read_tables(ENGINE, TABLES)) == _rows(before)
    warehouse = connect(ENGINE)
    try:
        assert not any(warehouse.schema_exists(f"{_schema()}__building{x}") for x in SCHEMA_SUFFIXES)
    finally:
        warehouse.close()


def _has_results() -> bool:
    try:
        return bool(read_tables(ENGINE, ("offer_results",))["offer_results"])
    except Exception:  # no results table yet
        return False


# the input contract, typed as a warehouse holds it
TYPED = {
    "transactions": "transaction_id, entity_id, transaction_type, cast(transaction_date as date) as transaction_date, "
                    "sku_key, cast(quantity as decimal(18,4)) as quantity, uom_key, "
                    "cast(amount as decimal(18,4)) as amount",
    "prices": "sku_key, cast(price as decimal(18,4)) as price, cast(start_date as date) as start_date, "
              "cast(end_date as date) as end_date",
}


def test_compile_then_dbt_build_alone_on_tables_created_through_the_server(
        tmp_path: Path, duckdb_example: tuple, capsys: pytest.CaptureFixture[str]) -> None:
    """README (Spark cluster): the inputs are tables of the warehouse, created through the Thrift
    server under the team's own names (no enrollments table, a pass-through column); `incentives
    compile` writes the rule tables as seeds; `dbt build --target spark_thrift`, run on its own as a
    person would, loads them and builds the results, identical to DuckDB's."""
    schema = _schema()
    own, staging, manual = f"{schema}_own", f"{schema}_own_load", f"{schema}_manual"
    warehouse = connect(ENGINE)
    try:
        for name in (own, staging, manual, f"{manual}_internal"):
            warehouse.drop_schema(name)
        warehouse.create_schema(own)
        warehouse.create_schema(staging)
        scratch = duckdb.connect()
        load_inputs(scratch, EXAMPLES / "data")
        for name in OWN_NAMES:
            warehouse.copy_from_duckdb(scratch, f"raw.{name}", staging, name)
            columns = TYPED.get(name) or ", ".join(c for c in warehouse_target._text_columns(scratch, f"raw.{name}") if c != "_row")
            if name == "transactions":
                columns += f", concat('INV-', transaction_id) as {PASSTHROUGH}"
            warehouse.execute(f"create table {own}.{OWN_NAMES[name]} using parquet as select {columns} from {staging}.{name}")
        scratch.close()
        warehouse.drop_schema(staging)

        with redirect_stdout(io.StringIO()):  # the rule tables as seeds (what seeds/ already holds)
            assert main(["compile", str(EXAMPLES / "programs.json")]) == 0

        # the README's command, in a process of its own (the results go to the target's schema)
        env = {**os.environ, "INCENTIVES_SPARK_THRIFT_SCHEMA": manual}
        dbt = Path(PROJECT_DIR / ".venv" / "bin" / "dbt")
        command = [str(dbt) if dbt.exists() else "dbt", "build", "--target", ENGINE, "--project-dir", ".",
                   "--profiles-dir", "profiles", "--vars", json.dumps(dbt_vars(own))]
        done = subprocess.run(command, cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
        assert done.returncode == 0, done.stdout[-3000:]
        results = {t: warehouse.fetch_dicts(f"select * from {manual}.{t}") for t in TABLES}
        earnings = results["potential_earnings"]
        assert earnings and all(row.pop(PASSTHROUGH) == "INV-" + row["transaction_id"] for row in earnings)
        assert _rows(results) == duckdb_example[1]
    finally:
        for name in (own, staging, manual, f"{manual}_internal", f"{manual}_rules"):
            warehouse.drop_schema(name)
        warehouse.close()


def test_values_copy_keeps_text_exactly() -> None:
    """Tables sent as `insert ... values` (a server without shared files): quotes, backslashes,
    empty text and NULL arrive as they were."""
    schema = f"{_schema()}_values"
    texts = ["it's", "back\\slash", "", None, "two\nlines", "ünïcödé", "'; drop table x; --"]
    scratch = duckdb.connect()
    scratch.execute("create table t as select row_number() over () as _row, v from unnest(?::varchar[]) as u(v)",
                    [texts])
    warehouse = connect(ENGINE)
    assert isinstance(warehouse, SparkThrift)
    warehouse.shared_dir = None
    try:
        warehouse.drop_schema(schema)
        warehouse.create_schema(schema)
        warehouse.copy_from_duckdb(scratch, "t", schema, "t")
        got = warehouse.fetch(f"select _row, v from {schema}.t order by _row")
    finally:
        warehouse.drop_schema(schema)
        warehouse.close()
        scratch.close()
    assert [v for _, v in got] == texts


def test_shared_copy_is_read_in_place_and_goes_with_the_schema(tmp_path: Path) -> None:
    """Tables sent as Parquet files the server shares: an external table over the file DuckDB
    wrote (no copy on the server), whose folder drop_schema removes."""
    schema = f"{_schema()}_staged"
    scratch = duckdb.connect()
    rows = SparkThrift.VALUES_ROWS + 1
    scratch.execute(f"create table t as select i as _row, 'v' || i as v from range({rows}) r(i)")
    warehouse = connect(ENGINE)
    assert isinstance(warehouse, SparkThrift)
    warehouse.shared_dir = tmp_path
    folder = tmp_path / "incentives-staged" / schema / "t"
    try:
        warehouse.drop_schema(schema)
        warehouse.create_schema(schema)
        warehouse.copy_from_duckdb(scratch, "t", schema, "t")
        assert [p.name for p in folder.iterdir()] == ["part-00000.parquet"]
        got = warehouse.fetch(f"select count(*), max(v) from {schema}.t")
        location = {r[0]: r[1] for r in warehouse.fetch(f"describe table extended {schema}.t")}["Location"]
    finally:
        warehouse.drop_schema(schema)
        warehouse.close()
        scratch.close()
    assert got == [(rows, "v99")]
    assert location == f"file:{folder}"
    assert not folder.parent.exists()


def test_server_not_running_is_a_readable_error(tmp_path: Path) -> None:
    """The command as a person runs it (a process of its own), with no server at the port."""
    env = {**os.environ, "INCENTIVES_SPARK_THRIFT_PORT": "1", "INCENTIVES_SPARK_THRIFT_CONNECT_RETRIES": "0"}
    incentives = PROJECT_DIR / ".venv" / "bin" / "incentives"
    done = subprocess.run([str(incentives) if incentives.exists() else "incentives", "run", "--target", ENGINE,
                           "--programs", str(EXAMPLES / "programs.json"), "--data", str(EXAMPLES / "data")],
                          cwd=PROJECT_DIR, env=env, capture_output=True, text=True)
    assert done.returncode == 1, done.stderr
    assert ("error: cannot connect to the Spark Thrift server at 127.0.0.1:1 (target spark_thrift of "
            "profiles/profiles.yml; scripts/start-spark-cluster.sh starts a local one): failed to connect") in done.stderr
    assert "Traceback" not in done.stdout + done.stderr
