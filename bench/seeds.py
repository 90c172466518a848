"""How long `dbt seed` takes to load the compiled rule tables, per engine and catalogue size.

    python bench/seeds.py --programs 1000,5000 --targets duckdb,postgres[,spark]

For each size: the catalogue of N programs that bench/generate.py writes (the benchmark's
realistic programs), compiled into the seeds of a scratch copy of the dbt project. Then, per
target, each command in a subprocess and timed on the wall clock: `dbt parse` (dbt's start-up
and the parse of the project, which does not depend on the programs; it saves the parse the
next commands reuse), `dbt seed` of the same tables with no rows (header-only CSVs: start-up,
creating the tables) and `dbt seed` itself; "loading the rows" is the difference of the last
two. Next to it: the time `incentives run` spends loading the same CSVs itself (DuckDB's reader,
the `rules` phase). Prints a markdown table. A benchmark script, not a test: it asserts nothing.

The target `postgres_default` is PostgreSQL with dbt-postgres's own seed loader: the same project
without macros/postgres_seeds.sql (this project's postgres__load_csv_rows), for the comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROJECT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(PROJECT))
DBT = str(Path(sys.executable).parent / "dbt")


def catalogue(n: int, out: Path) -> str:
    """The programs.json of bench/generate.py for n programs."""
    subprocess.run([sys.executable, str(PROJECT / "bench" / "generate.py"), "--programs", str(n), "--programs-only",
                    "--out", str(out)], check=True, capture_output=True)
    return (out / "programs.json").read_text()


def scratch_project(root: Path, with_tests: bool = False) -> Path:
    """A copy of the dbt project under `root` (its seeds left to the caller); `with_tests`: with
    the project's own tests (tests/dbt), else an empty tests folder."""
    project = root / "project"
    project.mkdir()
    for name in ("dbt_project.yml", "models", "macros", "profiles"):
        source = PROJECT / name
        (shutil.copytree if source.is_dir() else shutil.copy)(source, project / name)
    if with_tests:
        shutil.copytree(PROJECT / "tests" / "dbt", project / "tests" / "dbt")
    else:
        (project / "tests" / "dbt").mkdir(parents=True)
    return project


def header_only(seeds: Path, out: Path) -> None:
    """A copy of the seeds folder with every CSV cut to its header (the same tables, no rows)."""
    shutil.copytree(seeds, out)
    for path in out.glob("*.csv"):
        path.write_text(path.read_text().split("\n", 1)[0] + "\n")


def dbt(command: str, target: str, project: Path, env: dict[str, str]) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run([DBT, command, "--target", target, "--project-dir", str(project),
                           "--profiles-dir", str(project / "profiles"), "--quiet"], env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    return seconds, "ok" if done.returncode == 0 else f"failed: {(done.stdout + done.stderr).strip()[-300:]}"


def drop(target: str, schema: str) -> None:
    if target != "postgres":
        return
    from compiler.targets.warehouse import connect

    os.environ["INCENTIVES_PG_SCHEMA"] = schema
    warehouse = connect("postgres")
    warehouse.drop_schema(schema + "_rules")
    warehouse.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", default="1000,5000")
    parser.add_argument("--targets", default="duckdb,postgres")
    args = parser.parse_args()
    from compiler.compile.programs import compile_text
    from compiler.compile.write import write_rules
    from compiler.run.load import load_rule_tables

    import duckdb

    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}", flush=True)
    rows = []
    for n in (int(x) for x in args.programs.split(",")):
        with tempfile.TemporaryDirectory(prefix="incentives-seed-bench-") as tmp:
            root = Path(tmp)
            project = scratch_project(root)
            rules, _ = compile_text(catalogue(n, root / "generated"), f"{n} programs")
            write_rules(rules, project / "seeds")
            rule_rows = sum(len(r) for r in rules.tables.values())
            csv_mb = sum(p.stat().st_size for p in (project / "seeds").glob("*.csv")) / 1e6
            started = time.perf_counter()
            con = duckdb.connect(str(root / "cli.duckdb"))
            load_rule_tables(con, project / "seeds", "main_rules")
            con.close()
            cli_seconds = time.perf_counter() - started
            empty = root / "empty"
            shutil.copytree(project, empty)
            shutil.rmtree(empty / "seeds")
            header_only(project / "seeds", empty / "seeds")
            for target in args.targets.split(","):
                for folder in (project, empty):  # this project's loader, or not (then a fresh parse)
                    loader = folder / "macros" / "postgres_seeds.sql"
                    if target == "postgres_default" and loader.exists():
                        loader.unlink()
                        shutil.rmtree(folder / "target", ignore_errors=True)
                    elif target != "postgres_default" and not loader.exists():
                        shutil.copy(PROJECT / "macros" / "postgres_seeds.sql", loader)
                        shutil.rmtree(folder / "target", ignore_errors=True)
                schema = f"seed_bench_{os.getpid()}"
                env = dict(os.environ, INCENTIVES_DUCKDB_PATH=str(root / f"seed_{target}.duckdb"),
                           INCENTIVES_PG_SCHEMA=schema, INCENTIVES_SPARK_SCHEMA=schema,
                           INCENTIVES_SPARK_DIR=str(root / "spark"))
                engine = "postgres" if target == "postgres_default" else target
                parse, status = dbt("parse", engine, project, env)
                dbt("parse", engine, empty, env)
                start_up, empty_status = dbt("seed", engine, empty, env)  # the same tables, no rows
                seconds, seed_status = dbt("seed", engine, project, env)
                status = next((s for s in (status, empty_status, seed_status) if s != "ok"), "ok")
                drop(engine, schema)
                rows.append((n, rule_rows, csv_mb, target, parse, start_up, seconds, cli_seconds, status))
                print(f"{n} programs, {rule_rows:,} rule rows ({csv_mb:.1f} MB of CSV), {target}: dbt parse {parse:.1f} s, "
                      f"dbt seed of the empty tables {start_up:.1f} s, dbt seed {seconds:.1f} s "
                      f"(incentives run's own load {cli_seconds:.2f} s) {status}", flush=True)
    print("\n| programs | rule rows (CSV) | target | `dbt parse` (s) | `dbt seed`, no rows (s) | `dbt seed` (s) "
          "| of which loading the rows (s) | `incentives run` loading them (s) |")
    print("|---|---|---|---|---|---|---|---|")
    for n, rule_rows, csv_mb, target, parse, start_up, seconds, cli_seconds, status in rows:
        print(f"| {n:,} | {rule_rows:,} ({csv_mb:.0f} MB) | {target} | {parse:.1f} | {start_up:.1f} | {seconds:.1f}"
              f"{'' if status == 'ok' else ' ' + status} | {seconds - start_up:.1f} | {cli_seconds:.2f} |")


if __name__ == "__main__":
    main()
