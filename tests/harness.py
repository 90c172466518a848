"""Run the real engine (compile + load + dbt build) on in-memory programs and tables, on DuckDB,
PostgreSQL, Spark in-process or a Spark Thrift server on a standalone cluster (`target`).

INCENTIVES_ENGINES (default duckdb,postgres,spark,spark_thrift) lists the engines the engine tests
run on. An engine listed there must work: its tests fail, never skip, when its server or pyspark is
missing (`make test` starts PostgreSQL and the Spark cluster and checks Java first). Leave an engine
out to skip its tests.
"""

from __future__ import annotations

import csv
import datetime as dt
import json
import os
from decimal import Decimal
from pathlib import Path
from typing import Any

from compiler.run.load import INPUT_COLUMNS
from compiler.run.record import RESULT_TABLES
from compiler.runner import run
from compiler.targets import get_target

ALL_ENGINES = ("duckdb", "postgres", "spark", "spark_thrift")
# The engines whose SQL differs: the Spark Thrift server runs the same spark__ macros as Spark
# in-process (a run there costs about two minutes of the cluster's statements), so the tests of
# what the SQL computes run on these; the Thrift server's own tests (tests/test_spark_thrift.py:
# the differential cases, a failed build, dbt build alone on tables made through the server; and
# in tests/test_engines.py: the example, a failed build, bad data; docs/testing.md) cover its
# transport, load, swap and results.
SQL_ENGINES = ("duckdb", "postgres", "spark")
# DuckDB and PostgreSQL: the tests whose run on Spark would repeat another test's there (each
# test's reason: docs/testing.md)
DUCKDB_AND_POSTGRES = ("duckdb", "postgres")
ENGINES = tuple(e for e in ALL_ENGINES
                if e in {x.strip() for x in os.environ.get("INCENTIVES_ENGINES", ",".join(ALL_ENGINES)).split(",")})


def engine_params(engines: tuple[str, ...] = ALL_ENGINES) -> list[Any]:
    """pytest params for `engines`; those left out of INCENTIVES_ENGINES are skipped."""
    import pytest

    return [pytest.param(e, id=e, marks=() if e in ENGINES else
                         pytest.mark.skip(reason=f"{e} is not in INCENTIVES_ENGINES")) for e in engines]


def _text(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (dt.date, Decimal, int, float)):
        return str(value)
    return str(value)


def write_inputs(tables: dict[str, list[dict[str, Any]]], data_dir: Path) -> None:
    """Write each table as CSV with the contract's columns (absent optional tables are skipped)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    for name, rows in tables.items():
        with open(data_dir / f"{name}.csv", "w", newline="") as fh:
            writer = csv.writer(fh, lineterminator="\n")
            columns = INPUT_COLUMNS[name]
            writer.writerow(columns)
            for row in rows:
                writer.writerow([_text(row.get(c)) for c in columns])


def read_target_results(target: str, workdir: Path,
                        tables: tuple[str, ...] = RESULT_TABLES) -> dict[str, list[dict[str, Any]]]:
    """The tables of the last run_engine(workdir) on `target`."""
    if target == "duckdb":
        return read_results(workdir / "results.duckdb", tables)
    return read_tables(target, tables)


def read_tables(target: str, tables: tuple[str, ...], schema: str | None = None) -> dict[str, list[dict[str, Any]]]:
    """Rows of tables of a warehouse target (default schema: the profile's), as dicts."""
    return get_target(target).read_tables(tables, schema)


def read_results(database: Path, tables: tuple[str, ...] = RESULT_TABLES) -> dict[str, list[dict[str, Any]]]:
    return get_target("duckdb", database).read_tables(tables)


# The columns SEMANTICS.md lists, plus the opportunity columns the oracle computes too
# (offer_results also carries tier-proximity columns).
OFFER_RESULTS_SEMANTICS = ("entity_id", "program_key", "offer_key", "program_qualified", "offer_qualified",
                           "qualified", "incentive_amount", "potential_if_qualified", "next_tier_incentive_amount",
                           "next_tier_uplift", "blocking_program_qualifications", "blocking_offer_qualifications")


def run_engine(programs: Any, tables: dict[str, list[dict[str, Any]]], workdir: Path,
               threads: int = 1, all_columns: bool = False, target: str = "duckdb",
               extra_tables: tuple[str, ...] = (), forecast: dict[str, Any] | None = None) -> dict[str, list[dict[str, Any]]]:
    """Results of `incentives run [--target target]` on these programs and tables, as lists of row dicts
    (`forecast`: the forecast's vars, as `run --forecast --as-of ...` passes them).

    The tables are cut to the SEMANTICS.md columns (no run_id, no tier proximity) unless `all_columns`.
    `extra_tables` (e.g. stack_coverage, run_warnings) are read as they are.
    """
    workdir.mkdir(parents=True, exist_ok=True)
    programs_path = workdir / "programs.json"
    programs_path.write_text(json.dumps(programs, default=str, indent=1))
    write_inputs(tables, workdir / "data")
    database = workdir / "results.duckdb"
    run(programs_path, workdir / "data", database, say=lambda _: None, threads=threads, target=target, forecast=forecast)
    results = read_target_results(target, workdir, (*RESULT_TABLES, *extra_tables))
    extras = {name: results.pop(name) for name in extra_tables}
    if not all_columns:
        results["offer_results"] = [{c: r[c] for c in OFFER_RESULTS_SEMANTICS} for r in results["offer_results"]]
        for rows in results.values():
            for row in rows:
                row.pop("run_id", None)
    return {**results, **extras}


def strip_to_semantics(results: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """What run_engine(all_columns=False) returns, from an all_columns result."""
    out = {name: [{k: v for k, v in row.items() if k != "run_id"} for row in results[name]] for name in RESULT_TABLES}
    out["offer_results"] = [{c: r[c] for c in OFFER_RESULTS_SEMANTICS} for r in out["offer_results"]]
    return out


def normalized(rows: list[dict[str, Any]]) -> list[tuple[tuple[str, Any], ...]]:
    """Rows as sorted, comparable tuples; decimals compared by value (1.50 == 1.5)."""
    def value(v: Any) -> Any:
        if isinstance(v, Decimal):
            return v.normalize() if v != 0 else Decimal(0)
        return v

    return sorted((tuple(sorted((k, value(v)) for k, v in r.items())) for r in rows), key=repr)
