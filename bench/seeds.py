"""How long `dbt seed` takes to load the compiled rule tables, per engine and catalogue size.

    python bench/seeds.py --programs 1000,5000 --targets duckdb,postgres[,spark]

For each size: a catalogue of N programs (copies of the example's six, renamed), compiled into
the seeds of a scratch copy of the dbt project; then `dbt seed --target T` into a scratch
database or schema, timed (wall, in a subprocess, dbt's start-up included), next to the time
`incentives run` spends loading the same CSVs itself (DuckDB's reader, the `rules` phase).
Prints a markdown table. A benchmark script, not a test: it asserts nothing.
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))


def catalogue(n: int) -> str:
    base = json.loads((PROJECT / "examples" / "programs.json").read_text())["programs"]
    out = []
    for i in range(n):
        program = copy.deepcopy(base[i % len(base)])
        program["key"] += f".copy{i}"
        for offer in program.get("offers", []):
            offer["key"] += f".copy{i}"
        out.append(program)
    return json.dumps({"programs": out})


def scratch_project(root: Path) -> Path:
    project = root / "project"
    project.mkdir()
    for name in ("dbt_project.yml", "models", "macros", "profiles"):
        source = PROJECT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
    (project / "tests" / "dbt").mkdir(parents=True)
    return project


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", default="1000,5000")
    parser.add_argument("--targets", default="duckdb,postgres")
    args = parser.parse_args()
    from compiler.pipeline.compile import compile_text, write_rules
    from compiler.pipeline.load import load_rule_tables

    import duckdb

    rows = []
    for n in (int(x) for x in args.programs.split(",")):
        with tempfile.TemporaryDirectory(prefix="incentives-seed-bench-") as tmp:
            root = Path(tmp)
            project = scratch_project(root)
            rules, _ = compile_text(catalogue(n), f"{n} programs")
            write_rules(rules, project / "seeds")
            rule_rows = sum(len(r) for r in rules.tables.values())
            started = time.perf_counter()
            con = duckdb.connect(str(root / "cli.duckdb"))
            load_rule_tables(con, project / "seeds", "main_rules")
            con.close()
            cli_seconds = time.perf_counter() - started
            for target in args.targets.split(","):
                env = dict(os.environ, INCENTIVES_DUCKDB_PATH=str(root / "seed.duckdb"),
                           INCENTIVES_PG_SCHEMA=f"seed_bench_{os.getpid()}", INCENTIVES_SPARK_DIR=str(root / "spark"))
                started = time.perf_counter()
                done = subprocess.run([str(Path(sys.executable).parent / "dbt"), "seed", "--target", target,
                                       "--project-dir", str(project), "--profiles-dir", str(project / "profiles"),
                                       "--quiet"], env=env, capture_output=True, text=True)
                seconds = time.perf_counter() - started
                status = "ok" if done.returncode == 0 else f"failed: {(done.stdout + done.stderr).strip()[-200:]}"
                rows.append((n, rule_rows, target, seconds, cli_seconds, status))
                print(f"{n} programs, {rule_rows:,} rule rows, {target}: dbt seed {seconds:.1f} s "
                      f"(incentives run's own load {cli_seconds:.2f} s) {status}", flush=True)
                if target == "postgres":
                    from compiler.targets import warehouse as engines

                    os.environ["INCENTIVES_PG_SCHEMA"] = env["INCENTIVES_PG_SCHEMA"]
                    warehouse = engines.connect("postgres")
                    warehouse.drop_schema(env["INCENTIVES_PG_SCHEMA"] + "_rules")
                    warehouse.close()
    print("\n| programs | rule rows | target | `dbt seed` (s, with dbt's start-up) | `incentives run` loading them (s) |")
    print("|---|---|---|---|---|")
    for n, rule_rows, target, seconds, cli_seconds, status in rows:
        print(f"| {n:,} | {rule_rows:,} | {target} | {seconds:.1f}{'' if status == 'ok' else ' ' + status} | {cli_seconds:.2f} |")


if __name__ == "__main__":
    main()
