"""What what-if scenarios cost a run: the same data with and without N scenarios of K transactions.

    python bench/scenarios.py --data bench/data/t10M_e10k_p1k_s2026 [--scenarios 100 --per-scenario 10]
                              [--repeats 2] [--what-if 3]

The scenarios are drawn from the data's own transactions (seeded): each names one participant
that has transactions and adds K hypothetical ones of SKUs, types and dates of its actual
transactions, with another quantity and amount. They are written as scenarios.parquet into a
copy of the data folder (the other files linked, not copied). Then `incentives run` on both
folders, alternating, --repeats times each (each run on a new --database path), on the wall
clock, with the rows of scenario_results and scenario_earnings. With --what-if K, K runs of
`incentives what-if` for one participant on the database built without scenarios. Prints a
markdown table. A benchmark script, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
from pathlib import Path

import duckdb

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT / "bench"))
import run as bench_run  # noqa: E402  (bench/run.py: the run monitor and dbt's run results watcher)

OUT = PROJECT / "bench" / "out" / "scenarios"


def write_scenarios(data: Path, out: Path, scenarios: int, per_scenario: int, seed: int) -> None:
    """`out`: the files of `data` linked, and scenarios.parquet drawn from its transactions."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for path in data.iterdir():
        if path.is_file() and not path.name.startswith("scenario"):
            os.symlink(path.resolve(), out / path.name)
    transactions = next(p for p in (data / "transactions.parquet", data / "transactions.csv") if p.exists())
    reader = (f"read_parquet('{transactions}')" if transactions.suffix == ".parquet"
              else f"read_csv('{transactions}', header = true, all_varchar = true)")
    con = duckdb.connect()
    rng = random.Random(seed)
    entities = [r[0] for r in con.execute(f"select distinct entity_id from {reader} order by 1").fetchall()]
    named = rng.sample(entities, min(scenarios, len(entities)))
    rows = con.execute(
        f"select entity_id, transaction_type, cast(transaction_date as varchar), sku_key, uom_key from {reader} "
        f"where entity_id in (select unnest(?)) using sample reservoir(20000 rows) repeatable ({seed})",
        [named]).fetchall()
    by_entity: dict[str, list[tuple]] = {}
    for row in rows:
        by_entity.setdefault(row[0], []).append(row)
    out_rows = []
    for n, entity in enumerate(named):
        like = by_entity.get(entity) or rows
        for k in range(per_scenario):
            _, ttype, date, sku, uom = rng.choice(like)
            quantity = round(rng.uniform(1, 200), 2)
            out_rows.append((f"bench_{n:04d}", entity, f"WHATIF-{n:04d}-{k:03d}", ttype, date, sku, quantity, uom,
                             round(quantity * rng.uniform(5, 80), 2)))
    con.execute("create table scenarios (scenario_id varchar, entity_id varchar, transaction_id varchar, "
                "transaction_type varchar, transaction_date date, sku_key varchar, quantity decimal(18,4), "
                "uom_key varchar, amount decimal(18,4))")
    con.executemany("insert into scenarios values (?, ?, ?, ?, ?, ?, ?, ?, ?)", out_rows)
    con.execute(f"copy scenarios to '{out / 'scenarios.parquet'}' (format parquet)")
    con.close()


def counts(database: Path) -> dict[str, int]:
    con = duckdb.connect(str(database), read_only=True)
    try:
        tables = {r[0] for r in con.execute("select table_name from information_schema.tables").fetchall()}
        return {t: con.execute(f"select count(*) from {t}").fetchone()[0]
                for t in ("potential_earnings", "offer_results", "scenario_results", "scenario_earnings") if t in tables}
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="a folder of bench/generate.py (programs.json, data/)")
    ap.add_argument("--scenarios", type=int, default=100)
    ap.add_argument("--per-scenario", type=int, default=10)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args(argv)

    programs, data = args.data / "programs.json", args.data / "data"
    OUT.mkdir(parents=True, exist_ok=True)
    with_dir = OUT / f"{args.data.name}_{args.scenarios}x{args.per_scenario}"
    write_scenarios(data, with_dir, args.scenarios, args.per_scenario, args.seed)
    times: dict[str, list[float]] = {"without": [], "with": []}
    rows: dict[str, dict[str, int]] = {}
    nodes: dict[str, dict[str, float]] = {}
    for i in range(args.repeats):
        for label, folder in (("without", data), ("with", with_dir)):
            database = OUT / f"{label}.duckdb"
            run = bench_run.timed_run(programs, folder, database)
            seconds, nodes[label] = run["seconds"], run["nodes"]
            times[label].append(seconds)
            rows[label] = counts(database)
            print(f"  run {i + 1} {label} scenarios: {seconds:.1f}s {rows[label]}", flush=True)
    print("\nThe dbt nodes whose time differs most (last run of each), seconds with / without:")
    for name in sorted(nodes["with"], key=lambda n: -(nodes["with"][n] - nodes["without"].get(n, 0)))[:10]:
        print(f"  {nodes['with'][name]:7.2f} {nodes['without'].get(name, 0):7.2f}  {name}")
    without, within = statistics.median(times["without"]), statistics.median(times["with"])
    print(f"\n| data | scenarios | without | with | ratio | scenario_results | scenario_earnings |")
    print("|---|---|---:|---:|---:|---:|---:|")
    print(f"| {args.data.name} | {args.scenarios} x {args.per_scenario} | {without:.1f} s | {within:.1f} s | "
          f"{within / without:.2f}x | {rows['with'].get('scenario_results', 0):,} | {rows['with'].get('scenario_earnings', 0):,} |")
    print(f"\n(medians of {args.repeats} runs each, alternating; every run on a new database path)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
