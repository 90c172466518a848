"""What one exact quotient costs on the Spark Thrift server: the project's own `quotient` macro
(macros/arithmetic.sql, rendered by `dbt compile --inline --target spark_thrift`) summed over N
rows, beside Spark's own rounded division and beside the same expression inside a
`case when <denominator> = 0 then null else ... end` guard, the macro's earlier form (Spark does
not share repeated subexpressions inside a conditional branch, so such a guard decides whether the
limbs' repeated parts are computed once or many times; the macro now makes a zero denominator
null with nullif instead). Prints wall time and the executors' CPU seconds (from the
server's REST API); asserts nothing.

    python bench/spark_quotient.py [--rows 200000]      (scripts/start-spark-cluster.sh first)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
sys.path.insert(0, str(BENCH))
import spark_thrift  # noqa: E402


def macro_sql() -> str:
    """The quotient amount x rate / den to 2 places, as the project's macro writes it for Spark."""
    with tempfile.TemporaryDirectory() as tmp:
        done = subprocess.run(
            [str(PROJECT / ".venv" / "bin" / "dbt"), "compile", "--target", "spark_thrift", "--project-dir", str(PROJECT),
             "--profiles-dir", str(PROJECT / "profiles"), "--quiet", "--target-path", f"{tmp}/target",
             "--log-path", f"{tmp}/logs", "--inline",
             "select {{ incentives.multiply_divide('amount', 'rate', '1', 'den', 2) }} as q from t"],
            capture_output=True, text=True, cwd=PROJECT)
    if done.returncode != 0:
        raise SystemExit(done.stdout[-3000:] + done.stderr[-3000:])
    m = re.search(r"select (.*) as q from t", done.stdout, re.S)
    if not m:
        raise SystemExit("no compiled SQL in dbt's output:\n" + done.stdout[-3000:])
    return m.group(1).strip()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=200_000)
    args = ap.parse_args()
    if not spark_thrift.server_accepts():
        raise SystemExit("the Spark Thrift server does not accept connections: scripts/start-spark-cluster.sh")
    exact = macro_sql()
    guarded = f"(case when den = 0 then null else {exact} end)"
    source = (f"(select cast(id % 99991 as decimal(18,4)) / 7 as amount, cast(3 + id % 7 as decimal(18,4)) / 100 "
              f"as rate, cast(1 + id % 13 as decimal(18,4)) as den from range({args.rows})) as t")
    from compiler.targets.warehouse import connect

    rest = spark_thrift.SparkRest(spark_thrift.ui_url())
    warehouse = connect("spark_thrift")
    print(f"{args.rows:,} rows of amount x rate / den to 2 places through the Spark Thrift server "
          f"(load average {Path('/proc/loadavg').read_text().split()[0]})")
    try:
        warehouse.fetch(f"select count(*) from {source}")  # the executors warm
        for label, expr in (("Spark's decimal division, rounded", "round(amount * rate / den, 2)"),
                            ("the quotient macro (exact, in limbs)", exact),
                            ("the same inside a CASE null guard", guarded)):
            marks = rest.marks()
            started = time.perf_counter()
            total = warehouse.fetch(f"select sum({expr}) from {source}")[0][0]
            wall = time.perf_counter() - started
            stages = [s for s in rest.app_get("/stages") if s["stageId"] > marks["stage"]]
            cpu = sum(s.get("executorCpuTime", 0) for s in stages) / 1e9
            print(f"  {label:<40} sum {total}  wall {wall:6.1f}s  executor CPU {cpu:6.1f}s "
                  f"({cpu / args.rows * 1e6:.1f} µs a row)", flush=True)
    finally:
        warehouse.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
