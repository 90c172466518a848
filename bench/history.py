"""What offer_results_history costs a warehouse run as the runs add up.

    python bench/history.py --target postgres [--rows 784587] [--runs 1,8,32]

In the schemas `bench_history` and `bench_history__building` of the target (dropped before and
after), a history table of the model's columns with --rows rows a run (784,587: the participant x
offer pairs of the 1M two-season data) grows to each number of --runs; at each, the two ways a run
can carry it are timed on the wall clock:

- copy: the whole history into the building schema (a run's carry before it copied only the latest
  run), plus, on Spark, the copy back next to the live table in the swap;
- latest run: what a run does now (compiler/targets/warehouse.py): `carry_latest_run` into the
  building schema, then `append_history` of the run's rows to the live table in the swap.

Between the two, the building schema gets the run's rows as dbt's incremental model appends them.
Prints one line per number of runs. A benchmark script, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))

from compiler.targets.warehouse import Warehouse, connect  # noqa: E402

LIVE, BUILDING, NAME = "bench_history", "bench_history__building", "offer_results_history"


def contract_columns(model: str = NAME) -> str:
    """The columns of the model's enforced contract (models/marts/forecast/_forecast.yml), in order:
    run_rows gives a value for each, by position."""
    import yaml

    models = yaml.safe_load((PROJECT / "models" / "marts" / "forecast" / "_forecast.yml").read_text())["models"]
    return ", ".join(c["name"] for c in next(m for m in models if m["name"] == model)["columns"])


COLUMNS = contract_columns()


def run_rows(target: str, run: int, rows: int) -> str:
    """A query of one run's rows (run ids and recorded_at in the order of the runs)."""
    if target == "postgres":
        return (f"select * from (select 'run-{run:03d}', timestamp '2026-01-01' + interval '{run}' day, "
                f"date '2026-01-01', 'entity_' || (i % 10000), 'program_' || (i % 1000), 'offer_' || (i % 2625), "
                f"cast(i % 100000 as decimal(38,2)) / 100, cast(i % 70000 as decimal(38,2)) / 100, "
                f"cast(null as decimal(38,2)), cast(null as decimal(38,2)), 'tier_' || (i % 3), cast(null as text) "
                f"from generate_series(1, {rows}) as g(i)) as x({COLUMNS})")
    return (f"select * from (select 'run-{run:03d}', timestamp_ntz'2026-01-01 00:00:00' + make_interval(0, 0, 0, {run}), "
            f"date'2026-01-01', concat('entity_', id % 10000), concat('program_', id % 1000), concat('offer_', id % 2625), "
            f"cast(cast(id % 100000 as decimal(38,2)) / 100 as decimal(38,2)), "
            f"cast(cast(id % 70000 as decimal(38,2)) / 100 as decimal(38,2)), cast(null as decimal(38,2)), "
            f"cast(null as decimal(38,2)), concat('tier_', id % 3), cast(null as string) "
            f"from range(1, {rows + 1})) as x({COLUMNS})")


def timed(work) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", required=True, help="postgres, spark or spark_thrift")
    parser.add_argument("--rows", type=int, default=784_587, help="rows of history a run")
    parser.add_argument("--runs", default="1,8,32", help="numbers of runs in the history, ascending")
    args = parser.parse_args()
    warehouse: Warehouse = connect(args.target)
    spark = args.target != "postgres"
    live, building = f"{LIVE}.{NAME}", f"{BUILDING}.{NAME}"
    try:
        for schema in (LIVE, BUILDING):
            warehouse.drop_schema(schema)
        warehouse.create_schema(LIVE)
        warehouse.execute(f"create table {live}{warehouse.table_format} as {run_rows(args.target, 0, args.rows)}")
        have = 1
        for runs in (int(n) for n in args.runs.split(",")):
            for run in range(have, runs):
                warehouse.execute(f"insert into {live} {run_rows(args.target, run, args.rows)}")
            rows = warehouse.fetch(f"select count(*) from {live}")[0][0]

            warehouse.drop_schema(BUILDING)
            warehouse.create_schema(BUILDING)
            copy = timed(lambda: warehouse.execute(f"create table {building}{warehouse.table_format} as select * from {live}"))
            warehouse.execute(f"insert into {building} {run_rows(args.target, runs, args.rows)}")
            if spark:  # the swap's copy next to the live table
                copy += timed(lambda: warehouse.execute(
                    f"create table {live}__new{warehouse.table_format} as select * from {building}"))
                warehouse.execute(f"drop table {live}__new")

            warehouse.drop_schema(BUILDING)
            warehouse.create_schema(BUILDING)
            latest = timed(lambda: warehouse.carry_latest_run(LIVE, BUILDING, NAME))
            warehouse.execute(f"insert into {building} {run_rows(args.target, runs, args.rows)}")
            latest += timed(lambda: warehouse.append_history(BUILDING, LIVE, NAME, f"run-{runs:03d}"))
            have = runs + 1  # the appended run stays in the history
            print(f"{args.target}: {runs} runs of history ({rows:,} rows): copy {copy:.2f} s, "
                  f"latest run {latest:.2f} s", flush=True)
    finally:
        for schema in (LIVE, BUILDING):
            warehouse.drop_schema(schema)
        warehouse.close()


if __name__ == "__main__":
    main()
