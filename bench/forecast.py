"""What the forecast costs a run: the same data with and without `--forecast`.

    python bench/forecast.py --data bench/data/seasons_t10M_e10k_p1k_s2026 [--as-of 2026-03-31] [--repeats 2]

`incentives run` on the folder (with --as-of, its transactions up to that day, as a warehouse holds
them on that day) without and with `--forecast [--as-of DATE]`, alternating, --repeats
times each (each run on a new --database path), on the wall clock with the peak resident memory
of the run's processes and their CPU seconds; then the rows of forecast_results by method and
the projected transactions (the rows of the forecast's scenario participants beyond their actual
ones), and the dbt nodes whose time differs most. Prints a markdown table. A benchmark script,
not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
from pathlib import Path

import duckdb

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT / "bench"))
import run as bench_run  # noqa: E402  (bench/run.py: the run monitor and dbt's run results watcher)

OUT = PROJECT / "bench" / "out" / "forecast"


def cut_at(data: Path, as_of: str, out: Path) -> Path:
    """A copy of the data folder as a warehouse holds it on `as_of`: the transactions up to that day
    (the other files linked)."""
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for f in data.iterdir():
        if not f.name.startswith("transactions."):
            (out / f.name).symlink_to(f.resolve())
    (source,) = [f for f in data.iterdir() if f.name.startswith("transactions.")]
    reader = f"read_parquet('{source}')" if source.suffix == ".parquet" else f"read_csv('{source}')"
    con = duckdb.connect()
    con.execute(f"copy (select * from {reader} where transaction_date <= date '{as_of}') "
                f"to '{out / 'transactions.parquet'}' (format parquet)")
    con.close()
    return out


def forecast_rows(database: Path) -> dict[str, int]:
    """forecast_results' rows by method, and the transactions the forecast projected."""
    con = duckdb.connect(str(database), read_only=True)
    try:
        out = {f"method {m}": n for m, n in con.execute(
            "select method, count(*) from main.forecast_results group by method order by method").fetchall()}
        schemas = [r[0] for r in con.execute(
            "select table_schema from information_schema.tables "
            "where table_name = 'int_incentives__forecast_transactions'").fetchall()]
        if schemas:  # a view: counting it computes the projection again
            out["projected transactions"] = con.execute(
                f"select count(*) from {schemas[0]}.int_incentives__forecast_transactions").fetchone()[0]
        return out
    finally:
        con.close()


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, required=True, help="a folder of bench/generate.py (programs.json, data/)")
    ap.add_argument("--as-of", default=None, help="the forecast's day (default: the latest transaction_date)")
    ap.add_argument("--repeats", type=int, default=2)
    args = ap.parse_args(argv)

    programs, data = args.data / "programs.json", args.data / "data"
    OUT.mkdir(parents=True, exist_ok=True)
    if args.as_of:  # both runs on the transactions up to as_of, as on that day
        data = cut_at(data, args.as_of, OUT / f"{args.data.name}_to_{args.as_of}")
    modes = {"without": [], "with": ["--forecast", *(["--as-of", args.as_of] if args.as_of else [])]}
    runs: dict[str, list[dict]] = {label: [] for label in modes}
    for i in range(args.repeats):
        for label, flags in modes.items():
            run = bench_run.timed_run(programs, data, OUT / f"{label}.duckdb", tuple(flags))
            runs[label].append(run)
            print(f"  run {i + 1} {label} forecast: {run['seconds']:.1f}s, CPU {run['cpu']:.0f}s, "
                  f"peak {run['peak'] / 2**30:.2f} GiB", flush=True)
    rows = forecast_rows(OUT / "with.duckdb")
    last = {label: runs[label][-1]["nodes"] for label in modes}
    print("\nThe dbt nodes whose time differs most (last run of each), seconds with / without:")
    for name in sorted(last["with"], key=lambda n: -(last["with"][n] - last["without"].get(n, 0)))[:10]:
        print(f"  {last['with'][name]:7.2f} {last['without'].get(name, 0):7.2f}  {name}")
    med = {label: statistics.median(r["seconds"] for r in runs[label]) for label in modes}
    cpu = {label: statistics.median(r["cpu"] for r in runs[label]) for label in modes}
    peak = {label: max(r["peak"] for r in runs[label]) for label in modes}
    print("\n| data | without | with --forecast | ratio | CPU without / with | peak RSS without / with | forecast_results |")
    print("|---|---:|---:|---:|---:|---:|---|")
    methods = ", ".join(f"{k.split()[1]} {v:,}" for k, v in rows.items() if k.startswith("method"))
    methods += f"; {rows.get('projected transactions', 0):,} projected transactions"
    print(f"| {args.data.name} | {med['without']:.1f} s | {med['with']:.1f} s | {med['with'] / med['without']:.2f}x | "
          f"{cpu['without']:.0f} / {cpu['with']:.0f} s | {peak['without'] / 2**30:.2f} / {peak['with'] / 2**30:.2f} GiB | "
          f"{methods} |")
    print(f"\n(medians of {args.repeats} runs each, alternating; every run on a new database path)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
