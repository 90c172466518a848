"""Start-up figures: `incentives compile` + dbt's parse of a large catalogue, and the example's
repeated run (`make run`).

    python bench/startup.py [--programs 5000] [--repeats 5] [--skip-catalogue] [--skip-example]

Catalogue: the programs of bench/generate.py (cached in bench/data/programs_p<N>_s<seed>/) and a
second catalogue, the same without its last program, compiled in turn into the seeds of a scratch
copy of the dbt project (as a user of the package does: `incentives compile programs.json --out
seeds/`, then `dbt build`). Each command runs in its own process, timed on the wall clock and in
CPU seconds (user + system of the process, which other work on the machine barely changes):

- `incentives compile` of the catalogue;
- `dbt parse`, fresh: no target/ (a new checkout, or a changed dbt version or profile);
- `dbt parse`, partial, nothing changed: what every dbt command pays on an unchanged project;
- `dbt parse`, partial, after the seeds changed: the other catalogue was just compiled into
  seeds/. This is the parse a user meets when the programs change: dbt keeps its saved parse
  (target/partial_parse.msgpack) and re-parses the changed seeds and their tests.

Each figure is the median of --repeats runs; the parse of a `dbt build` is the same as `dbt
parse`'s (the same start-up and the same parse, without the build's nodes).

Example: `incentives run` of examples/ into out/example.duckdb (the `make run` command) once to
warm up (a first run parses the project and compiles the input checks), then --repeats times:
wall and CPU seconds and the phases of its summary line; then `incentives report` (the second
command of `make run`). A benchmark script: it prints figures and asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
BIN = PROJECT / ".venv" / "bin"
PYTHON, INCENTIVES, DBT = BIN / "python", BIN / "incentives", BIN / "dbt"
sys.path.insert(0, str(BENCH))
from seeds import scratch_project  # noqa: E402

TIMINGS = re.compile(r"^\s*timings\s+(.*)$", re.M)


def timed(cmd: list[str], cwd: Path = PROJECT, env: dict[str, str] | None = None) -> tuple[float, float, str]:
    """(wall seconds, CPU seconds of the process, its output); exits when the command fails."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"failed ({done.returncode}): {' '.join(cmd)}\n{(done.stdout + done.stderr)[-3000:]}")
    return wall, after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime, done.stdout


def median(values: list[float]) -> float:
    return statistics.median(values) if values else float("nan")


def figure(pairs: list[tuple[float, float]]) -> str:
    return f"{median([w for w, _ in pairs]):.2f} s (CPU {median([c for _, c in pairs]):.2f} s)"


def catalogues(n: int, seed: int) -> tuple[Path, Path]:
    """The catalogue of bench/generate.py (generated when missing) and the same without its last program."""
    out = BENCH / "data" / f"programs_p{n // 1000}k_s{seed}" if n % 1000 == 0 else BENCH / "data" / f"programs_p{n}_s{seed}"
    programs = out / "programs.json"
    if not (out / ".complete").exists():
        subprocess.run([str(PYTHON), str(BENCH / "generate.py"), "--programs", str(n), "--programs-only",
                        "--seed", str(seed), "--out", str(out)], check=True, cwd=PROJECT)
        (out / ".complete").write_text("programs only\n")
    other = out / "programs_but_last.json"
    if not other.exists() or other.stat().st_mtime < programs.stat().st_mtime:
        data = json.loads(programs.read_text())
        listed = data["programs"] if isinstance(data, dict) else data
        listed.pop()
        other.write_text(json.dumps(data))
    return programs, other


def bench_catalogue(n: int, seed: int, repeats: int) -> dict[str, list[tuple[float, float]]]:
    programs, other = catalogues(n, seed)
    print(f"== catalogue of {n:,} programs ({programs.stat().st_size / 2**20:.1f} MB): compile + dbt parse", flush=True)
    out: dict[str, list[tuple[float, float]]] = {k: [] for k in ("compile", "fresh", "unchanged", "changed")}
    with tempfile.TemporaryDirectory(prefix="incentives-startup-") as tmp:
        project = scratch_project(Path(tmp), with_tests=True)
        env = dict(os.environ, INCENTIVES_DUCKDB_PATH=str(Path(tmp) / "bench.duckdb"))
        parse = [str(DBT), "parse", "--project-dir", str(project), "--profiles-dir", str(project / "profiles"), "--quiet"]
        for i in range(repeats):
            wall, cpu, _ = timed([str(INCENTIVES), "compile", str((programs, other)[i % 2]), "--out", str(project / "seeds")])
            out["compile"].append((wall, cpu))
            # the first parse: fresh; the next ones find the saved parse of the other catalogue
            out["fresh" if i == 0 else "changed"].append(timed(parse, env=env)[:2])
            out["unchanged"].append(timed(parse, env=env)[:2])
            if i:
                shutil.rmtree(project / "target")
                out["fresh"].append(timed(parse, env=env)[:2])  # and saves the parse for the next one
            print(f"  [{i + 1}] compile {wall:.2f} s (CPU {cpu:.2f}); parse fresh {out['fresh'][-1][0]:.2f}, "
                  f"unchanged {out['unchanged'][-1][0]:.2f}"
                  + (f", after the seeds changed {out['changed'][-1][0]:.2f}" if i else ""), flush=True)
    return out


def phases(output: str) -> dict[str, float]:
    found = TIMINGS.search(output)
    if not found:
        return {}
    return {k: float(v.rstrip("s")) for k, v in (p.strip().split() for p in found.group(1).split(","))}


def bench_example(repeats: int) -> dict[str, object]:
    print("== the example (make run): incentives run, repeated", flush=True)
    run = [str(INCENTIVES), "run", "--programs", "examples/programs.json", "--data", "examples/data",
           "--database", "out/example.duckdb"]
    report = [str(INCENTIVES), "report", "--database", "out/example.duckdb", "--out", "out/example-report.html"]
    wall, cpu, _ = timed(run)
    print(f"  warm-up (may parse the project) {wall:.2f} s (CPU {cpu:.2f})", flush=True)
    runs, reports, phase_runs = [], [], []
    for i in range(repeats):
        wall, cpu, output = timed(run)
        runs.append((wall, cpu))
        phase_runs.append(phases(output))
        reports.append(timed(report)[:2])
        print(f"  [{i + 1}] run {wall:.2f} s (CPU {cpu:.2f}) {phase_runs[-1]}; report {reports[-1][0]:.2f} s", flush=True)
    names = list(phase_runs[0]) if phase_runs else []
    return {"run": runs, "report": reports,
            "phases": {k: median([p.get(k, 0.0) for p in phase_runs]) for k in names}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--programs", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--skip-catalogue", action="store_true")
    parser.add_argument("--skip-example", action="store_true")
    args = parser.parse_args()
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}; "
          f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}", flush=True)
    lines = []
    if not args.skip_catalogue:
        c = bench_catalogue(args.programs, args.seed, args.repeats)
        user = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(c["compile"][1:], c["changed"])]
        lines += [f"| `incentives compile`, {args.programs:,} programs | {figure(c['compile'])} |",
                  f"| `dbt parse`, fresh (no target/) | {figure(c['fresh'])} |",
                  f"| `dbt parse`, partial, nothing changed | {figure(c['unchanged'])} |",
                  f"| `dbt parse`, partial, after the seeds changed | {figure(c['changed'])} |",
                  f"| compile + parse after the seeds changed (what a user meets) | {figure(user)} |"]
    if not args.skip_example:
        e = bench_example(args.repeats)
        both = [(a[0] + b[0], a[1] + b[1]) for a, b in zip(e["run"], e["report"])]  # type: ignore[arg-type]
        lines += [f"| `incentives run` of the example, repeated | {figure(e['run'])} |",  # type: ignore[arg-type]
                  f"| `incentives report` of the example | {figure(e['report'])} |",  # type: ignore[arg-type]
                  f"| `make run` (run + report), repeated | {figure(both)} |",
                  "| phases of the run (median s) | " + ", ".join(f"{k} {v:.2f}" for k, v in e["phases"].items()) + " |"]  # type: ignore[union-attr]
    print(f"\nmedian of {args.repeats} (load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())})\n")
    print("| what | wall (CPU) |\n|---|---|")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
