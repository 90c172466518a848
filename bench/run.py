"""Benchmark the incentive engine end to end against a DuckDB floor, on both data shapes.

    python bench/run.py --sizes 1M,3M,10M [--shapes dense,seasons] [--participants N --programs 1000]
                        [--no-enrollments-size 1M] [--catalogue 5000] [--example-repeats 3]
                        [--explain 1] [--spark-thrift [--spark-example-repeats 3]] [--out bench/results.md]

Two shapes of data (bench/generate.py --shape): `dense`, where about one earning row is written
per transaction, and `seasons` (bench/seasons.py), a warehouse's two seasons where most
transactions earn nothing. The report opens with the shapes side by side: for each size and
shape the end-to-end time, the contract floor on the same data and their ratio, the peak RSS,
the rows written, the share of enrolled participant x offer pairs that qualify and the earning
rows per 100 transactions; then the example's first run on a new --database path and its
repeated run on the same path (--example-repeats times each, medians). No timing is asserted.

For each size and shape: generate the data (cached under bench/data/<params>/, see bench/generate.py),
time `incentives run` in a subprocess while sampling the peak RSS of its whole process tree
(/proc every 0.2 s), read the phase timings of its summary line and the per-model times of
target/run_results.json, count the rows of the three result tables, and time the floor: ONE
DuckDB query (python duckdb, fresh connection, default threads) that reads the same
transactions parquet, joins it to the SKU -> offer table of the same programs (standard rates'
SKUs, stepped earning filters' SKUs, stacked sets' conversion SKUs) and writes the amount per
participant x offer to a table. Then `incentives compile` + `dbt parse` of a catalogue of
--catalogue programs. Prints the machine, a markdown table, and writes it to --out.

With --explain K, the K slowest models of each run are re-run with EXPLAIN ANALYZE against a
copy of the built database (profiles in bench/out/<name>.explain.<model>.txt).

With --spark-thrift, the example goes through `incentives run --target spark_thrift` once (the
server's warm-up, when it was just started) and --spark-example-repeats times more (the warm
server), and then each size (not the no-enrollments run) on the local cluster of
scripts/start-spark-cluster.sh (start it first), into the schema --spark-schema, emptied before
each size as DuckDB's runs start in a new file: wall time per phase, CPU seconds of the
cluster's processes, its summary compared with DuckDB's, and the costliest Spark stages of the
run from the Thrift server application's REST API (bench/spark_thrift.py; the stages' plans in
bench/out/<name>.spark_thrift.stages.txt). The load average before and after each run is printed
beside the figures: on a shared machine they are figures under contention.
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
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
from collections import defaultdict
from pathlib import Path

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
VENV_BIN = PROJECT / ".venv" / "bin"
if not (VENV_BIN / "incentives").exists():  # a checkout without its own virtualenv: the running one's
    VENV_BIN = Path(sys.executable).parent
# The commands run this checkout's compiler (and so its dbt project), whichever checkout the
# virtualenv was installed from.
os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(PROJECT), os.environ.get("PYTHONPATH")) if p)
PYTHON = VENV_BIN / "python"
INCENTIVES = VENV_BIN / "incentives"
DBT = VENV_BIN / "dbt"
sys.path.insert(0, str(PROJECT))
from compiler.run.build import dbt_target_path  # noqa: E402

RUN_RESULTS = PROJECT / dbt_target_path() / "run_results.json"  # what `incentives run` writes
os.environ.setdefault("DBT_WRITE_JSON", "true")  # `incentives run` writes run_results.json only when asked
DATA_ROOT = BENCH / "data"
OUT_ROOT = BENCH / "out"
PAGE = os.sysconf("SC_PAGE_SIZE")

sys.path.insert(0, str(BENCH))
import spark_thrift  # noqa: E402
from contract_floor import contract_floor  # noqa: E402
from cputime import cpu_seconds  # noqa: E402
from generate import DATA_VERSION, SHAPES, default_participants, parse_count  # noqa: E402


def human(n: int) -> str:
    for unit, div in (("M", 1_000_000), ("k", 1_000)):
        if n >= div and n % (div // 10) == 0:
            text = f"{n / div:.1f}".rstrip("0").rstrip(".")
            return text + unit
    return str(n)


# ------------------------------------------------------------------------------------- machine

def machine() -> str:
    mem_kb = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kb = int(line.split()[1])
    model = "unknown"
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    import duckdb
    return (f"nproc {os.cpu_count()}, memory {mem_kb / 1024 / 1024:.1f} GiB, CPU {model}, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}, "
            f"duckdb {duckdb.__version__}")


# ----------------------------------------------------------------------------------- processes

def tree_rss(root: int) -> int:
    """Bytes of resident memory of `root` and all its descendants."""
    children: dict[int, list[int]] = defaultdict(list)
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        ppid = int(stat[stat.rindex(")") + 2:].split()[1])
        children[ppid].append(int(name))
    total, stack = 0, [root]
    while stack:
        pid = stack.pop()
        try:
            with open(f"/proc/{pid}/statm") as f:
                total += int(f.read().split()[1]) * PAGE
        except OSError:
            pass
        stack.extend(children.get(pid, []))
    return total


def monitored(cmd: list[str], log: Path, hook=None, env: dict | None = None) -> tuple[int, float, int, float]:
    """Run `cmd` (output to `log`, environment `env` or ours); exit code, wall seconds, peak tree
    RSS bytes and CPU seconds of the process tree (user + system: unlike wall time they barely
    move when other work shares the cores). `hook()` is called at every poll and once after the
    exit."""
    cpu_before = cpu_seconds(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    peak = 0
    with log.open("w") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, cwd=PROJECT, env=env)
        while proc.poll() is None:
            peak = max(peak, tree_rss(proc.pid))
            if hook:
                hook()
            time.sleep(0.2)
    seconds = time.perf_counter() - started
    cpu = cpu_seconds(resource.RUSAGE_CHILDREN) - cpu_before
    if hook:
        hook()
    return proc.returncode, seconds, peak, cpu


def timed_run(programs: Path, data: Path, database: Path, flags: tuple[str, ...] = ()) -> dict:
    """One `incentives run` of `programs` on `data` into a new `database` (what an earlier run left
    there removed first), `flags` added: its wall and CPU seconds, peak RSS and the seconds of each
    dbt node (RunResultsWatcher). Exits with the log's end when the run fails."""
    for p in database.parent.glob(database.name + "*"):
        shutil.rmtree(p) if p.is_dir() else p.unlink()
    log = database.with_suffix(".log")
    watcher = RunResultsWatcher("incentives", database.with_suffix(".run_results.json"))
    code, seconds, peak, cpu = monitored([str(INCENTIVES), "run", "--programs", str(programs), "--data", str(data),
                                          "--database", str(database), *flags], log, watcher)
    if code != 0:
        raise SystemExit(f"incentives run failed ({code}):\n{log.read_text()[-3000:]}")
    nodes = {r["unique_id"].split(".")[-1]: r["execution_time"] for r in (watcher.data or {}).get("results", [])}
    return {"seconds": seconds, "peak": peak, "cpu": cpu, "nodes": nodes}


# ---------------------------------------------------------------------------------------- data

def data_dir(n_tx: int, n_ent: int, n_prog: int, seed: int, enrollments: bool, shape: str = "dense") -> Path:
    prefix = "" if shape == "dense" else f"{shape}_"
    return DATA_ROOT / (f"{prefix}t{human(n_tx)}_e{human(n_ent)}_p{human(n_prog)}_s{seed}"
                        f"{'' if enrollments else '_noenr'}")


def ensure_data(n_tx: int, n_ent: int, n_prog: int, seed: int, enrollments: bool,
                shape: str = "dense") -> tuple[Path, float | None]:
    """The cached data folder (generated when missing or made by another version of the
    generator) and the generation seconds (None: cached)."""
    out = data_dir(n_tx, n_ent, n_prog, seed, enrollments, shape)
    marker = out / ".complete"
    if marker.exists():
        try:
            version = json.loads(marker.read_text()).get("version")
        except ValueError:
            version = None
        if version == DATA_VERSION:
            return out, None
    if out.exists():
        shutil.rmtree(out)
    cmd = [str(PYTHON), str(BENCH / "generate.py"), "--shape", shape, "--transactions", str(n_tx),
           "--participants", str(n_ent), "--programs", str(n_prog), "--seed", str(seed), "--out", str(out)]
    if not enrollments:
        cmd.append("--no-enrollments")
    print(f"  generating {out.relative_to(PROJECT)}", flush=True)
    started = time.perf_counter()
    subprocess.run(cmd, check=True, cwd=PROJECT)
    seconds = time.perf_counter() - started
    marker.write_text(json.dumps({"cmd": cmd[1:], "seconds": round(seconds, 1), "version": DATA_VERSION}) + "\n")
    return out, seconds


def sku_offer_rows(programs_path: Path) -> list[tuple[str, str]]:
    """Every offer's earning SKUs: standard rates, stepped earning filters, stacked conversions."""
    programs = json.loads(programs_path.read_text())
    if isinstance(programs, dict):
        programs = programs["programs"]
    rows: set[tuple[str, str]] = set()
    for p in programs:
        for o in p.get("offers", []):
            key = o["key"]
            if o["strategy_key"] == "standard":
                for inc in o.get("incentives") or []:
                    rows.update((r["sku_key"], key) for r in inc.get("rates", []))
            elif o["strategy_key"] == "stepped":
                for f in o["incentive"].get("filters", []):
                    rows.update((s, key) for s in f.get("sku_keys") or [])
            elif o["strategy_key"] == "stacked":
                for s in o["incentive"]["sku_sets"]:
                    rows.update((r["sku_key"], key) for r in s["conversion"]["rates"])
    return sorted(rows)


def floor(data: Path, programs: Path, name: str, repeats: int = 3) -> tuple[float, float, list[float], int, int]:
    """The one-query floor: median seconds and median CPU seconds over `repeats` fresh databases
    and connections, every timing, its output rows, and the SKU -> offer rows."""
    import duckdb

    db = OUT_ROOT / f"{name}.floor.duckdb"
    rows = sku_offer_rows(programs)
    timings, cpus, n = [], [], 0
    with tempfile.TemporaryDirectory(dir=OUT_ROOT) as tmp:
        path = Path(tmp) / "sku_offer.csv"
        with path.open("w", newline="") as f:
            w = csv.writer(f)
            w.writerow(["sku_key", "offer_key"])
            w.writerows(rows)
        for _ in range(max(1, repeats)):
            for p in (db, Path(str(db) + ".wal")):
                if p.exists():
                    p.unlink()
            con = duckdb.connect(str(db))
            con.execute(f"create table sku_offer as select * from read_csv('{path}', header = true, all_varchar = true)")
            con.execute("checkpoint")
            con.close()
            con = duckdb.connect(str(db))  # fresh connection, default settings (threads = all cores)
            started, cpu_started = time.perf_counter(), cpu_seconds(resource.RUSAGE_SELF)
            con.execute(f"""
                create table floor as
                select t.entity_id, so.offer_key, sum(t.amount) as amount
                from read_parquet('{data / "transactions.parquet"}') as t
                inner join sku_offer as so on so.sku_key = t.sku_key
                group by t.entity_id, so.offer_key
            """)
            timings.append(time.perf_counter() - started)
            cpus.append(cpu_seconds(resource.RUSAGE_SELF) - cpu_started)
            n = con.execute("select count(*) from floor").fetchone()[0]
            con.close()
    return sorted(timings)[len(timings) // 2], sorted(cpus)[len(cpus) // 2], timings, n, len(rows)


# ----------------------------------------------------------------------------------------- run

TIMINGS = re.compile(r"^\s*timings\s+(.*)$", re.M)


def parse_timings(text: str) -> dict[str, float]:
    m = TIMINGS.search(text)
    if not m:
        return {}
    out = {}
    for part in m.group(1).split(","):
        name, _, value = part.strip().rpartition(" ")
        try:
            out[name] = float(value.rstrip("s"))
        except ValueError:
            pass
    return out


def load_average() -> str:
    """The 1, 5 and 15 minute load averages (/proc/loadavg)."""
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


class RunResultsWatcher:
    """Keeps the target/run_results.json written by our run. target/ is shared with whoever else
    runs dbt in the project, so the file is read whenever it changes during the run and kept only
    when its relations live in our kind of database (catalog = the building database file's stem,
    `incentives` for every DuckDB run, so another DuckDB run in the same checkout at the same time
    would be taken for ours; on Spark, `prefix` = the schema the run builds into)."""

    def __init__(self, catalog: str, copy_to: Path, prefix: str | None = None, results: Path = RUN_RESULTS):
        self.catalog = catalog
        self.prefix = prefix if prefix is not None else f'"{catalog}".'
        self.copy_to = copy_to
        self.results = results  # a warehouse target's run writes its own: target/<target>/run_results.json
        self.seen: float | None = results.stat().st_mtime if results.exists() else None
        self.data: dict | None = None

    def __call__(self) -> None:
        try:
            mtime = self.results.stat().st_mtime
        except OSError:
            return
        if mtime == self.seen:
            return
        try:
            data = json.loads(self.results.read_text())
        except (OSError, ValueError):
            return  # being written: retry at the next poll
        self.seen = mtime
        relations = [r.get("relation_name") or "" for r in data.get("results", [])]
        if any(rel.startswith(self.prefix) for rel in relations):
            self.data = data
            self.copy_to.write_text(json.dumps(data))


def model_times(results: dict | None) -> tuple[list[tuple[str, float]], float, float]:
    """(model, seconds) slowest first, total model seconds, total test seconds."""
    if not results:
        return [], 0.0, 0.0
    models, tests = [], 0.0
    for r in results.get("results", []):
        uid = r.get("unique_id", "")
        if uid.startswith("model."):
            models.append((uid.split(".")[-1], float(r.get("execution_time") or 0)))
        elif uid.startswith("test."):
            tests += float(r.get("execution_time") or 0)
    models.sort(key=lambda x: -x[1])
    return models, sum(t for _, t in models), tests


def _operators(node: dict, depth: int = 0, out: list | None = None) -> list[tuple[int, dict, int]]:
    """Flatten a JSON profile: (depth, operator, rows in = sum of the children's rows out)."""
    out = [] if out is None else out
    children = node.get("children", [])
    out.append((depth, node, sum(int(c.get("operator_cardinality", c.get("intermediate_rows", 0)) or 0)
                                 for c in children)))
    for child in children:
        _operators(child, depth + 1, out)
    return out


def _rows_out(node: dict) -> int:
    return int(node.get("operator_cardinality", node.get("intermediate_rows", 0)) or 0)


def _detail(node: dict) -> str:
    info = node.get("extra_info") or {}
    parts = []
    for key in ("Table", "Join Type", "Conditions", "Groups", "Aggregates", "Filters", "Partition By", "Function"):
        value = info.get(key)
        if value:
            text = " ".join(str(value).split()) if not isinstance(value, list) else "; ".join(map(str, value))
            parts.append(f"{key}: {text[:160]}")
    return " | ".join(parts)


def explain(results: dict, database: Path, name: str, top: int) -> list[Path]:
    """EXPLAIN ANALYZE of the `top` slowest models against a copy of the built database: a profile
    tree (operator, seconds, rows in -> rows out, conditions) and its 10 costliest operators."""
    import duckdb

    written = []
    nodes = sorted((r for r in results.get("results", []) if r["unique_id"].startswith("model.")),
                   key=lambda r: -float(r.get("execution_time") or 0))[:top]
    copy = OUT_ROOT / f"{name}.explain.duckdb"
    shutil.copyfile(database, copy)
    try:
        for node in nodes:
            sql = node.get("compiled_code")
            relation = node.get("relation_name") or ""
            if not sql:
                continue
            catalog = relation.split(".")[0].strip('"') if relation else "main"
            con = duckdb.connect()
            con.execute(f"attach '{copy}' as \"{catalog}\"")
            con.execute(f'use "{catalog}"')
            started = time.perf_counter()
            try:
                profile = json.loads(con.execute("explain (analyze, format json) " + sql).fetchall()[0][-1])
            except duckdb.Error as exc:
                print(f"  explain analyze of {node['unique_id']} failed: {str(exc).splitlines()[0]}")
                continue
            finally:
                con.close()
            seconds = time.perf_counter() - started
            ops = []
            for root in profile.get("operator", profile.get("children", [])) if isinstance(profile, dict) else profile:
                ops += _operators(root)
            model = node["unique_id"].split(".")[-1]
            lines = [f"-- {model}: EXPLAIN ANALYZE {seconds:.2f}s (dbt execution_time "
                     f"{float(node.get('execution_time') or 0):.2f}s)", "", "-- costliest operators "
                     "(own time; rows in = rows out of the children)"]
            for depth, op, rows_in in sorted(ops, key=lambda x: -float(x[1].get("operator_timing", x[1].get("timing", 0)) or 0))[:10]:
                t = float(op.get("operator_timing", op.get("timing", 0)) or 0)
                lines.append(f"{t:8.2f}s  {op.get('name', op.get('operator_name', '?')):<22} "
                             f"in {rows_in:>13,}  out {_rows_out(op):>13,}  {_detail(op)}")
            lines += ["", "-- profile tree"]
            for depth, op, rows_in in ops:
                t = float(op.get("operator_timing", op.get("timing", 0)) or 0)
                lines.append(f"{'  ' * depth}{op.get('name', op.get('operator_name', '?'))} {t:.2f}s "
                             f"in {rows_in:,} out {_rows_out(op):,}  {_detail(op)}")
            lines += ["", "-- compiled SQL", sql]
            path = OUT_ROOT / f"{name}.explain.{model}.txt"
            path.write_text("\n".join(lines) + "\n")
            written.append(path)
    finally:
        copy.unlink(missing_ok=True)
        Path(str(copy) + ".wal").unlink(missing_ok=True)
    return written


def bench_size(n_tx: int, n_ent: int | None, n_prog: int, seed: int, enrollments: bool, threads: int | None,
               explain_top: int, floor_repeats: int = 3, shape: str = "dense", engine_repeats: int = 1) -> dict:
    n_ent = n_ent or default_participants(shape, n_tx)
    label = human(n_tx) + ("" if shape == "dense" else f" {shape}") + ("" if enrollments else " (no enrollments)")
    print(f"\n== {label}: {n_tx:,} transactions ({shape}), {n_ent:,} participants, {n_prog:,} programs", flush=True)
    data, gen_seconds = ensure_data(n_tx, n_ent, n_prog, seed, enrollments, shape)
    name = data.name
    OUT_ROOT.mkdir(parents=True, exist_ok=True)
    database = OUT_ROOT / f"{name}.duckdb"
    cmd = [str(INCENTIVES), "run", "--programs", str(data / "programs.json"), "--data", str(data / "data"),
           "--database", str(database)]
    if threads:
        cmd += ["--threads", str(threads)]
    log = OUT_ROOT / f"{name}.log"
    load_before = load_average()
    engine_all: list[float] = []
    peak = 0
    for _ in range(engine_repeats):  # each on a new database path: the median reported, the last run's details
        for p in OUT_ROOT.glob(f"{name}.duckdb*"):
            if p.is_file():
                p.unlink()
        # a DuckDB run builds in <database>.building/incentives.duckdb: its relations are "incentives".*
        watcher = RunResultsWatcher("incentives", OUT_ROOT / f"{name}.run_results.json")
        code, run_seconds, run_peak, run_cpu = monitored(cmd, log, watcher)
        output = log.read_text()
        if code != 0:
            print(output[-4000:])
            raise SystemExit(f"incentives run failed with exit code {code} (log: {log})")
        engine_all.append(run_seconds)
        peak = max(peak, run_peak)
    seconds = statistics.median(engine_all)
    load_after = load_average()
    results = watcher.data
    if results is None:
        print("  warning: target/run_results.json of this run was not seen (overwritten by another dbt run?)")
    phases = parse_timings(output)
    models, model_total, test_total = model_times(results)
    import duckdb

    con = duckdb.connect(str(database), read_only=True)
    rows = {t: con.execute(f"select count(*) from main.{t}").fetchone()[0]
            for t in ("qualification_results", "potential_earnings", "offer_results")}
    participants, pairs, qualified = con.execute(
        "select count(distinct entity_id), count(*), count(*) filter (where qualified) from main.offer_results").fetchone()
    earning_tx = con.execute("select count(distinct transaction_id) from main.potential_earnings").fetchone()[0]
    con.close()
    enroll_path = data / "data" / "enrollments.parquet"
    n_enroll = None
    if enroll_path.exists():
        c = duckdb.connect()
        n_enroll = c.execute(f"select count(*) from read_parquet('{enroll_path}')").fetchone()[0]
        c.close()
    floor_s, floor_cpu, floor_all, floor_rows, sku_offers = floor(data / "data", data / "programs.json", name,
                                                                   floor_repeats)
    contract = contract_floor(data / "data", data / "programs.json", OUT_ROOT / f"{name}.contract_floor.duckdb",
                              floor_repeats)
    result = dict(label=label, shape=shape, transactions=n_tx, participants=n_ent, programs=n_prog,
                  enrollments=n_enroll, qualified_pairs=qualified, earning_transactions=earning_tx,
                  contract=contract, contract_ratio=seconds / contract["seconds"] if contract["seconds"] else float("nan"),
                  seconds=seconds, engine_all=engine_all, cpu=run_cpu, floor=floor_s, floor_cpu=floor_cpu, floor_all=floor_all, floor_rows=floor_rows, sku_offers=sku_offers,
                  ratio=seconds / floor_s if floor_s else float("nan"),
                  cpu_ratio=run_cpu / floor_cpu if floor_cpu else float("nan"), peak=peak, rows=rows,
                  models=models, model_total=model_total, test_total=test_total, phases=phases,
                  generated=gen_seconds, participants_seen=participants, offer_pairs=pairs,
                  load=(load_before, load_after), summary=spark_thrift.summary_block(output), data=data, name=name)
    print(f"  end-to-end {seconds:.1f}s (median of {', '.join(f'{t:.1f}' for t in engine_all)}), CPU {run_cpu:.1f}s (phases: {', '.join(f'{k} {v:.1f}s' for k, v in phases.items())}), "
          f"peak RSS {peak / 2**30:.2f} GB; load average {load_before} before, {load_after} after", flush=True)
    print(f"  floor {floor_s:.2f}s (median of {', '.join(f'{t:.2f}' for t in floor_all)}; {floor_rows:,} participant x offer rows from {sku_offers:,} SKU x offer rows), "
          f"ratio {result['ratio']:.1f}x; CPU: floor {floor_cpu:.1f}s, ratio {result['cpu_ratio']:.1f}x", flush=True)
    print(f"  contract floor {contract['seconds']:.2f}s (median of {', '.join(f'{t:.2f}' for t in contract['timings'])}; "
          f"CPU {contract['cpu']:.1f}s), ratio {result['contract_ratio']:.1f}x; rows written: "
          + ", ".join(f"{k} {v:,}" for k, v in contract["rows"].items()), flush=True)
    print("  rows out: " + ", ".join(f"{k} {v:,}" for k, v in rows.items()), flush=True)
    print(f"  participant x offer pairs {pairs:,}, qualified {qualified:,} ({qualified / max(pairs, 1):.1%}); "
          f"earning rows per 100 transactions {100 * rows['potential_earnings'] / n_tx:.1f}, "
          f"transactions that earn {earning_tx / n_tx:.1%}", flush=True)
    if models:
        print(f"  dbt: models {model_total:.1f}s, tests {test_total:.1f}s; slowest: "
              + ", ".join(f"{m} {t:.1f}s" for m, t in models[:5]), flush=True)
    if explain_top and results:
        for path in explain(results, database, name, explain_top):
            print(f"  explain analyze: {path.relative_to(PROJECT)}", flush=True)
    return result


def bench_spark_thrift(duck: dict, schema: str, top: int) -> dict:
    """The DuckDB run's data through `incentives run --target spark_thrift` into `schema`: wall
    time per phase, CPU seconds of the run's own process tree and of the cluster's processes, peak
    RSS of both, the summary against DuckDB's, dbt's per-model times and the costliest stages."""
    data, name = duck["data"], duck["name"]
    print(f"\n== {duck['label']} through the Spark Thrift server (target spark_thrift, schema {schema})", flush=True)
    cmd = spark_thrift_command(schema, data / "programs.json", data / "data")
    drop_spark_schemas(schema)
    rest = spark_thrift.SparkRest(spark_thrift.ui_url())
    marks = rest.marks()
    log = OUT_ROOT / f"{name}.spark_thrift.log"
    watcher = RunResultsWatcher(name, OUT_ROOT / f"{name}.spark_thrift.run_results.json", prefix=f"{schema}__building",
                               results=PROJECT / dbt_target_path("spark_thrift") / "run_results.json")
    cluster_peak = [0]
    polls = [0]

    def hook() -> None:
        watcher()
        polls[0] += 1
        if polls[0] % 5 == 1:  # the cluster's memory about once a second
            cluster_peak[0] = max(cluster_peak[0], spark_thrift.cluster_rss())

    run = spark_monitored(cmd, log, hook)
    seconds, peak, run_cpu, cluster_cpu = run["seconds"], run["peak"], run["cpu"], run["cluster_cpu"]
    output, phases = run["output"], run["phases"]
    models, model_total, test_total = model_times(watcher.data)
    from compiler.targets.warehouse import connect

    warehouse = connect("spark_thrift")
    try:
        rows = {t: int(warehouse.fetch(f"select count(*) from {schema}.{t}")[0][0])
                for t in ("qualification_results", "potential_earnings", "offer_results")}
    finally:
        warehouse.close()
    summary = spark_thrift.summary_block(output)
    same = summary == duck["summary"] and rows == duck["rows"]
    stages_path = OUT_ROOT / f"{name}.spark_thrift.stages.txt"
    stages = spark_thrift.collect(rest, marks, stages_path, top)
    result = dict(label=duck["label"], transactions=duck["transactions"], shape=duck["shape"],
                  seconds=seconds, cpu=run_cpu, cluster_cpu=cluster_cpu, peak=peak,
                  cluster_peak=cluster_peak[0], phases=phases, rows=rows, same=same, models_dbt=models,
                  model_total=model_total, test_total=test_total, load=run["load"],
                  duck_seconds=duck["seconds"], duck_cpu=duck["cpu"], duck_phases=duck["phases"], **stages)
    print(f"  end-to-end {seconds:.1f}s (DuckDB {duck['seconds']:.1f}s; phases: "
          f"{', '.join(f'{k} {v:.1f}s' for k, v in phases.items())})", flush=True)
    print(f"  CPU: incentives process {run_cpu:.1f}s, cluster (server, master, workers, executors) "
          f"{cluster_cpu:.1f}s; peak RSS: incentives {peak / 2**30:.2f} GB, cluster {cluster_peak[0] / 2**30:.2f} GB; "
          f"load average {run['load'][0]} before, {run['load'][1]} after", flush=True)
    print("  rows out: " + ", ".join(f"{k} {v:,}" for k, v in rows.items())
          + ("; summary and row counts identical to DuckDB's" if same else "; DIFFERENT from DuckDB's:\n"
             + summary + "\n  DuckDB:\n" + duck["summary"]), flush=True)
    if models:
        print(f"  dbt: models {model_total:.1f}s, tests {test_total:.1f}s; slowest: "
              + ", ".join(f"{m} {t:.1f}s" for m, t in models[:5]), flush=True)
    executor_run, executor_cpu = executor_totals(stages)
    print(f"  {stages['stage_count']} Spark stages, executor run {executor_run:.1f}s, CPU {executor_cpu:.1f}s in all; "
          "by executor run time (s of task time, summed over tasks):", flush=True)
    for r in stages["stages"][:top]:
        print(f"    stage {r['stage']:>5} {r['owner']:<32} run {r['run']:7.1f} CPU {r['cpu']:6.1f} GC {r['gc']:5.1f} "
              f"tasks {r['tasks']:>3} in {r['input_rows']:>10,} rows, shuffle r/w "
              f"{r['shuffle_read'] / 2**20:6.1f}/{r['shuffle_write'] / 2**20:6.1f} MB, out {r['output_rows']:>10,} rows",
              flush=True)
    print("  by dbt node (stages, executor run s, CPU s): " + ", ".join(
        f"{m} {int(v['stages'])} {v['run']:.1f} {v['cpu']:.1f}" for m, v in stages["models"][:8]), flush=True)
    print(f"  plans of the costliest stages: {stages_path.relative_to(PROJECT)}", flush=True)
    return result


def example_runs(repeats: int) -> dict:
    """`incentives run` of the example (examples/programs.json, examples/data), `repeats` times:
    a first run on a new --database path, then a repeated run on the same path. Without
    DBT_WRITE_JSON, as a user runs it. Lists of (wall s, CPU s, peak RSS bytes) and the phases
    of the last run of each kind."""
    print(f"\n== the example: {repeats} x (first run on a new --database path, repeated run on it)", flush=True)
    env = {k: v for k, v in os.environ.items() if k != "DBT_WRITE_JSON"}
    out: dict = {"new": [], "repeated": [], "phases": {}}
    OUT_ROOT.mkdir(parents=True, exist_ok=True)
    for i in range(repeats):
        with tempfile.TemporaryDirectory(dir=OUT_ROOT, prefix="example_") as tmp:
            database = Path(tmp) / "example.duckdb"
            cmd = [str(INCENTIVES), "run", "--programs", str(PROJECT / "examples" / "programs.json"),
                   "--data", str(PROJECT / "examples" / "data"), "--database", str(database)]
            for kind in ("new", "repeated"):
                log = Path(tmp) / f"{kind}.log"
                code, seconds, peak, cpu = monitored(cmd, log, env=env)
                if code != 0:
                    print(log.read_text()[-4000:])
                    raise SystemExit(f"incentives run of the example failed with exit code {code}")
                out[kind].append((seconds, cpu, peak))
                out["phases"][kind] = parse_timings(log.read_text())
                print(f"  {i + 1}: {'new path' if kind == 'new' else 'same path'} {seconds:.2f}s (CPU {cpu:.2f}s, "
                      f"peak RSS {peak / 2**30:.2f} GB)", flush=True)
    return out


def median(values: list[float]) -> float:
    values = sorted(values)
    mid = len(values) // 2
    return values[mid] if len(values) % 2 else (values[mid - 1] + values[mid]) / 2


def catalogue(n_prog: int, seed: int) -> dict:
    """Seconds of `incentives compile` and of `dbt parse` for a catalogue of `n_prog` programs."""
    print(f"\n== catalogue of {n_prog:,} programs: compile + dbt parse", flush=True)
    out = DATA_ROOT / f"programs_p{human(n_prog)}_s{seed}"
    programs = out / "programs.json"
    if not (out / ".complete").exists():
        subprocess.run([str(PYTHON), str(BENCH / "generate.py"), "--programs", str(n_prog), "--programs-only",
                        "--seed", str(seed), "--out", str(out)], check=True, cwd=PROJECT)
        (out / ".complete").write_text("programs only\n")
    size_mb = programs.stat().st_size / 2**20
    OUT_ROOT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=OUT_ROOT, prefix="catalogue_") as tmp:
        rules = Path(tmp) / "rules"
        code, compile_s, compile_peak, _ = monitored([str(INCENTIVES), "compile", str(programs), "--out", str(rules)],
                                                  Path(tmp) / "compile.log")
        if code != 0:
            print((Path(tmp) / "compile.log").read_text()[-4000:])
            raise SystemExit("incentives compile failed")
        rule_rows = sum(max(0, sum(1 for _ in p.open()) - 2) for p in rules.glob("*.csv"))
        # dbt parse needs the project's rule seeds (seeds/ is not committed): the example's when missing
        if not (PROJECT / "seeds" / "incentives__catalogue.csv").exists():
            subprocess.run([str(INCENTIVES), "compile", str(PROJECT / "examples" / "programs.json")], check=True,
                           capture_output=True)
        # A private target/log path so the project's target/ (partial parse, run_results) is untouched.
        parse_cmd = [str(DBT), "parse", "--project-dir", str(PROJECT), "--profiles-dir", str(PROJECT / "profiles"),
                     "--vars", json.dumps({"rules_dir": str(rules)}), "--target-path", str(Path(tmp) / "target"),
                     "--log-path", str(Path(tmp) / "logs")]
        code, parse_s, parse_peak, _ = monitored(parse_cmd, Path(tmp) / "parse.log")
        if code != 0:
            print((Path(tmp) / "parse.log").read_text()[-4000:])
            raise SystemExit("dbt parse failed")
    print(f"  programs.json {size_mb:.1f} MB; compile {compile_s:.1f}s ({rule_rows:,} rule rows, "
          f"peak RSS {compile_peak / 2**30:.2f} GB); dbt parse {parse_s:.1f}s", flush=True)
    return dict(programs=n_prog, size_mb=size_mb, compile=compile_s, parse=parse_s, rule_rows=rule_rows,
                compile_peak=compile_peak, parse_peak=parse_peak)


# -------------------------------------------------------------------------------------- report

def shapes_table(results: list[dict]) -> list[str]:
    """The runs side by side, a row per size and shape: end to end, the contract floor, their
    ratio, peak RSS, rows written, and how much of the data earns."""
    lines = ["| transactions | shape | participants | participant x offer pairs | qualified | earning rows per 100 "
             "transactions | transactions that earn | end-to-end s | contract floor s | ratio | peak RSS GB "
             "| rows written (qualification / earnings / offer) | contract floor rows |",
             "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|"]
    tables = ("qualification_results", "potential_earnings", "offer_results")
    for r in results:
        shape = r["shape"] + ("" if r["enrollments"] is not None else ", no enrollments")
        rows = " / ".join(f"{r['rows'][t]:,}" for t in tables)
        contract_rows = " / ".join(f"{r['contract']['rows'][t]:,}" for t in tables)
        lines.append(
            f"| {human(r['transactions'])} | {shape} | {r['participants']:,} | {r['offer_pairs']:,} "
            f"| {r['qualified_pairs'] / max(r['offer_pairs'], 1):.1%} "
            f"| {100 * r['rows']['potential_earnings'] / r['transactions']:.1f} "
            f"| {r['earning_transactions'] / r['transactions']:.1%} | {r['seconds']:.1f} "
            f"| {r['contract']['seconds']:.2f} | {r['contract_ratio']:.1f}x | {r['peak'] / 2**30:.2f} "
            f"| {rows} | {contract_rows} |")
    return lines


def spark_thrift_command(schema: str, programs: Path, data: Path) -> list[str]:
    """`incentives run --target spark_thrift` of `programs` on `data` into `schema` (set in our
    environment: the subprocess's and the row counts'), once the server accepts connections."""
    if not spark_thrift.server_accepts():
        raise SystemExit("the Spark Thrift server does not accept connections: start it with "
                         "scripts/start-spark-cluster.sh (and stop it with scripts/stop-spark-cluster.sh)")
    os.environ["INCENTIVES_SPARK_THRIFT_SCHEMA"] = schema
    return [str(INCENTIVES), "run", "--target", "spark_thrift", "--programs", str(programs), "--data", str(data)]


def drop_spark_schemas(schema: str) -> None:
    """Drop `schema` and its custom schemas on the server: each size's run starts as DuckDB's does,
    into an empty place, not after the earlier sizes' runs and their rows of history."""
    from compiler.targets.warehouse import connect

    warehouse = connect("spark_thrift")
    try:
        warehouse.drop_schemas(schema)
    finally:
        warehouse.close()


def spark_monitored(cmd: list[str], log: Path, hook=None) -> dict:
    """`monitored` for a run through the cluster: also the cluster's CPU seconds over the run, the
    load average before and after, the output and its phases. Exits with the log's end when the
    run fails."""
    load_before, cluster_before = load_average(), spark_thrift.cluster_cpu_seconds()
    code, seconds, peak, cpu = monitored(cmd, log, hook)
    load_after, cluster_cpu = load_average(), spark_thrift.cluster_cpu_seconds() - cluster_before
    output = log.read_text()
    if code != 0:
        print(output[-4000:])
        raise SystemExit(f"incentives run --target spark_thrift failed with exit code {code} (log: {log})")
    return dict(seconds=seconds, peak=peak, cpu=cpu, cluster_cpu=cluster_cpu, output=output,
                phases=parse_timings(output), load=(load_before, load_after))


def spark_example(schema: str, repeats: int) -> dict:
    """The example through the cluster before the measured sizes: one first run, then `repeats`
    runs more (the server warm). The first run on a newly started server also pays its JVM's
    warm-up (class loading, the JIT, the metastore's first queries), which would count against the
    first size and skew the marginal CPU per transaction; the warm runs are the example's speed on
    the cluster. Each: wall s, CPU s of the run's process and of the cluster's, and the run's phases."""
    cmd = spark_thrift_command(schema, PROJECT / "examples" / "programs.json", PROJECT / "examples" / "data")
    OUT_ROOT.mkdir(parents=True, exist_ok=True)
    print(f"\n== the example through the Spark Thrift server: a first run and {repeats} more", flush=True)
    drop_spark_schemas(schema)
    runs = []
    for i in range(1 + repeats):
        run = spark_monitored(cmd, OUT_ROOT / f"example{i}.spark_thrift.log")
        runs.append(run)
        print(f"  {'first' if i == 0 else 'warm'} run {run['seconds']:.1f}s, CPU s: incentives {run['cpu']:.1f}, "
              f"cluster {run['cluster_cpu']:.1f}; phases: "
              f"{', '.join(f'{k} {v:.1f}' for k, v in run['phases'].items())}", flush=True)
    return dict(first=runs[0], warm=runs[1:])


def spark_example_table(example: dict) -> list[str]:
    """The example's first run through the cluster and its warm runs (medians and every run)."""
    lines = ["| `incentives run --target spark_thrift` of the example | wall s (median) | CPU s: incentives + cluster "
             "(median) | every run, wall s | phases of the last run (s) |", "|---|---:|---:|---|---|"]
    for name, runs in (("first run of this benchmark", [example["first"]]), ("warm server", example["warm"])):
        if not runs:
            continue
        phases = ", ".join(f"{k} {v:.1f}" for k, v in runs[-1]["phases"].items() if k != "total")
        walls = ", ".join(f"{r['seconds']:.1f}" for r in runs)
        lines.append(f"| {name} | {median([r['seconds'] for r in runs]):.1f} "
                     f"| {median([r['cpu'] + r['cluster_cpu'] for r in runs]):.1f} | {walls} | {phases} |")
    return lines


def executor_totals(stages: dict) -> tuple[float, float]:
    """The executors' run time and CPU seconds over every stage of a Spark run: the rest of the
    cluster's CPU is the driver's (planning, code generation, the JIT) and the daemons'."""
    return sum(r["run"] for r in stages["stages"]), sum(r["cpu"] for r in stages["stages"])


def marginal_table(spark: list[dict]) -> list[str]:
    """Per shape with runs at two or more sizes: the CPU seconds each engine adds per million
    transactions between the smallest and the largest run (Spark: the run's own process and the
    cluster's), and their ratio: what a larger run costs beyond the fixed cost of a run."""
    lines = ["| shape | sizes | DuckDB CPU s | Spark CPU s (incentives + cluster) | DuckDB CPU s per 1M more "
             "| Spark CPU s per 1M more | Spark / DuckDB |", "|---|---|---:|---:|---:|---:|---:|"]
    for shape in sorted({r["shape"] for r in spark}):
        runs = sorted((r for r in spark if r["shape"] == shape), key=lambda r: r["transactions"])
        if len(runs) < 2:
            continue
        small, large = runs[0], runs[-1]
        millions = (large["transactions"] - small["transactions"]) / 1e6
        duck = (large["duck_cpu"] - small["duck_cpu"]) / millions
        cluster = (large["cpu"] + large["cluster_cpu"] - small["cpu"] - small["cluster_cpu"]) / millions
        lines.append(f"| {shape} | {human(small['transactions'])}, {human(large['transactions'])} "
                     f"| {small['duck_cpu']:.1f}, {large['duck_cpu']:.1f} "
                     f"| {small['cpu'] + small['cluster_cpu']:.1f}, {large['cpu'] + large['cluster_cpu']:.1f} "
                     f"| {duck:.1f} | {cluster:.1f} | {cluster / duck if duck > 0 else float('nan'):.1f}x |")
    return lines if len(lines) > 2 else []


def example_table(example: dict) -> list[str]:
    """The example's first run on a new path and its repeated run: medians and every run."""
    lines = ["| `incentives run` of the example | wall s (median) | CPU s (median) | peak RSS GB | every run, wall s "
             "| phases of the last run (s) |",
             "|---|---:|---:|---:|---|---|"]
    for kind, name in (("new", "first run on a new --database path"), ("repeated", "repeated run on the same path")):
        runs = example[kind]
        phases = ", ".join(f"{k} {v:.2f}" for k, v in example["phases"].get(kind, {}).items())
        lines.append(f"| {name} | {median([w for w, _, _ in runs]):.2f} | {median([c for _, c, _ in runs]):.2f} "
                     f"| {max(p for _, _, p in runs) / 2**30:.2f} | {', '.join(f'{w:.2f}' for w, _, _ in runs)} "
                     f"| {phases} |")
    return lines


def report(machine_text: str, results: list[dict], cat: dict | None, args: argparse.Namespace,
           spark: list[dict] | None = None, example: dict | None = None,
           spark_examples: dict | None = None) -> str:
    lines = [
        "# Benchmark results",
        "",
        f"Machine: {machine_text}.",
        f"Generated by `python bench/run.py {' '.join(sys.argv[1:])}` on "
        f"{dt.datetime.now().strftime('%Y-%m-%d %H:%M')}; engine threads: {args.threads or 'default'}.",
        "",
    ]
    if results:
        lines += ["The shapes side by side (bench/generate.py --shape; dense: about one earning row per transaction, "
                  "seasons: a warehouse's two seasons, bench/seasons.py). Contract floor: bench/contract_floor.py on "
                  "the same data; ratio: end to end / contract floor; participant x offer pairs: offer_results' rows, "
                  "of which qualified:", ""] + shapes_table(results) + [""]
    if example:
        lines += [f"The example (examples/programs.json, examples/data), {len(example['new'])} times each: a first run "
                  "on a new --database path, then a repeated run on the same path (as a user runs it: without "
                  "DBT_WRITE_JSON):", ""] + example_table(example) + [""]
    if results:
        lines += ["Each run in detail:", ""]
        lines += [
            "| size | participants | programs | enrollments | transactions | end-to-end s | contract floor s | ratio "
            "| join-only floor s | ratio | CPU s (contract floor CPU s) | peak RSS GB "
            "| rows out (qualification / earnings / offer) | contract floor rows | slowest models (s) |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|",
        ]
        for r in results:
            enr = f"{r['enrollments']:,}" if r["enrollments"] is not None else "none (all pairs)"
            rows = " / ".join(f"{r['rows'][t]:,}" for t in ("qualification_results", "potential_earnings",
                                                             "offer_results"))
            slow = ", ".join(f"{m} {t:.1f}" for m, t in r["models"][:5]) or "n/a"
            contract_rows = " / ".join(f"{r['contract']['rows'][t]:,}" for t in ("qualification_results",
                                                                             "potential_earnings", "offer_results"))
            lines.append(f"| {r['label']} | {r['participants']:,} | {r['programs']:,} | {enr} | {r['transactions']:,} "
                         f"| {r['seconds']:.1f} | {r['contract']['seconds']:.2f} | {r['contract_ratio']:.1f}x "
                         f"| {r['floor']:.2f} | {r['ratio']:.1f}x "
                         f"| {r['cpu']:.1f} ({r['contract']['cpu']:.1f}) | {r['peak'] / 2**30:.2f} "
                         f"| {rows} | {contract_rows} | {slow} |")
        lines += ["", "Phases of `incentives run` (from its summary line) and dbt node totals "
                  "(from target/run_results.json):", "",
                  "| size | " + " | ".join(["compile (alongside load)", "load", "wait", "build", "other", "total"]) +
                  " | dbt models s | dbt tests s | participant x offer pairs | floor rows | data generation s |",
                  "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for r in results:
            p = r["phases"]
            other = sum(v for k, v in p.items() if k not in ("compile", "load", "wait", "build", "total"))
            gen = f"{r['generated']:.1f}" if r["generated"] is not None else "cached"
            lines.append(f"| {r['label']} | {p.get('compile', 0):.1f} | {p.get('load', 0):.1f} | {p.get('wait', 0):.1f} "
                         f"| {p.get('build', 0):.1f} "
                         f"| {other:.1f} | {p.get('total', 0):.1f} | {r['model_total']:.1f} | {r['test_total']:.1f} "
                         f"| {r['offer_pairs']:,} | {r['floor_rows']:,} | {gen} |")
    if cat:
        lines += ["", f"Catalogue of {cat['programs']:,} programs ({cat['size_mb']:.1f} MB JSON): "
                  f"`incentives compile` {cat['compile']:.1f}s ({cat['rule_rows']:,} rule rows, peak RSS "
                  f"{cat['compile_peak'] / 2**30:.2f} GB), `dbt parse` {cat['parse']:.1f}s."]
    if spark_examples:
        lines += ["", "The example (examples/programs.json, examples/data, 4,027 transactions) through the Spark "
                  "Thrift server on the local standalone cluster (scripts/start-spark-cluster.sh: master, 2 workers "
                  "of 1 core), into an emptied schema before any size: the benchmark's first run on the server (on a "
                  "newly started server it also pays the JVM's warm-up), then the warm server's runs:", ""]
        lines += spark_example_table(spark_examples)
    if spark:
        lines += ["", "Through the Spark Thrift server on the local standalone cluster (scripts/start-spark-cluster.sh: "
                  "master, 2 workers of 1 core, Thrift server; `incentives run --target spark_thrift`, same data and "
                  "programs, into an emptied schema), beside the DuckDB run above. Load average (1/5/15 min) before "
                  "and after each run: the machine is shared, so wall times are under contention; CPU seconds move "
                  "less.", "",
                  "| size | DuckDB s | Spark s | Spark phases s | CPU s: incentives / cluster (DuckDB) "
                  "| peak RSS GB: incentives / cluster | same summary | load before → after |",
                  "|---|---:|---:|---|---:|---:|---|---|"]
        for r in spark:
            phases = ", ".join(f"{k} {v:.1f}" for k, v in r["phases"].items() if k != "total")
            lines.append(f"| {r['label']} | {r['duck_seconds']:.1f} | {r['seconds']:.1f} | {phases} "
                         f"| {r['cpu']:.1f} / {r['cluster_cpu']:.1f} ({r['duck_cpu']:.1f}) "
                         f"| {r['peak'] / 2**30:.2f} / {r['cluster_peak'] / 2**30:.2f} | {'yes' if r['same'] else 'NO'} "
                         f"| {r['load'][0]} → {r['load'][1]} |")
        marginal = marginal_table(spark)
        if marginal:
            lines += ["", "Marginal CPU per transaction (from the smallest and largest run of each shape):", ""]
            lines += marginal
        for r in spark:
            executor_run, executor_cpu = executor_totals(r)
            lines += ["", f"Costliest Spark stages of the {r['label']} run ({r['stage_count']} stages, executor run "
                      f"{executor_run:.1f} s and CPU {executor_cpu:.1f} s in all; executor run "
                      "time = task time summed over tasks, CPU = their CPU time; plans in "
                      f"bench/out/<data>.spark_thrift.stages.txt):", "",
                      "| stage | dbt node | executor run s | CPU s | GC s | tasks | input rows | shuffle read / write MB "
                      "| output rows |", "|---:|---|---:|---:|---:|---:|---:|---:|---:|"]
            for st in r["stages"][:args.spark_top]:
                lines.append(f"| {st['stage']} | {st['owner']} | {st['run']:.1f} | {st['cpu']:.1f} | {st['gc']:.1f} "
                             f"| {st['tasks']} | {st['input_rows']:,} | {st['shuffle_read'] / 2**20:.1f} / "
                             f"{st['shuffle_write'] / 2**20:.1f} | {st['output_rows']:,} |")
            lines += ["", "By dbt node (executor run s summed over its stages; dbt's execution_time includes "
                      "the statement's planning on the server and the polling): " + ", ".join(
                          f"{m} {v['run']:.1f}" for m, v in r["models"][:8]) + "; dbt slowest: "
                      + ", ".join(f"{m} {t:.1f}" for m, t in r["models_dbt"][:5]) + "."]
    if not results:  # the example through the cluster alone (--sizes "")
        return "\n".join(lines + [""])
    lines += ["", f"Contract floor (bench/contract_floor.py): median of {args.floor_repeats} runs, in one DuckDB connection "
              "(default threads) into a database file on the same disk, of the least work that writes the output "
              "contract: the participant x offer pairs (enrollments, or every participant x program), one row per "
              "participant x offer x qualification with qualification_results' columns (filter sums read from the "
              "transactions file in place), one row per transaction x qualified offer with potential_earnings' 19 "
              "columns and types, one row per participant x offer with offer_results' columns. It reads the qualifications' "
              "filters over their own periods (a yoy index's prior season), counts brands, reads entity and request "
              "properties and takes the qualifier as the AND of its qualifications; it skips prices, returns, waivers, "
              "transaction properties, OR in qualifiers, tiers (a stepped offer earns at its first tier's rate), "
              "stacked overlaps, exact quotients, data tests and dbt.",
              "", f"Join-only floor: median of {args.floor_repeats} runs of one DuckDB query (fresh database and connection each, default threads) reading the same transactions "
              "parquet, joined to the SKU -> offer table of the same programs (standard rates' SKUs, stepped "
              "earning filters' SKUs, stacked conversion SKUs), summing amount per participant x offer into a "
              "table; it ignores enrollments, prices and qualifications and writes no per-transaction rows. End-to-end: "
              f"median of {args.engine_repeats} runs (each on a new database path; phases, models and CPU of the last); it "
              "includes compile, load, dbt build (with data tests), run record, checkpoint and swap. Peak RSS: the "
              "whole process tree, sampled every 0.2 s (the highest of the runs). CPU s: user + system seconds of the run's process tree "
              "(and of the floor query), which other work on the machine barely changes.", ""]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sizes", default="1M", help="comma-separated transaction counts, e.g. 1M,3M,10M")
    ap.add_argument("--shapes", default="dense,seasons", help="comma-separated data shapes: dense, seasons")
    ap.add_argument("--participants", type=parse_count, default=None,
                    help="default: 10,000 (dense), one per 1,000 transactions (seasons)")
    ap.add_argument("--programs", type=parse_count, default=1_000)
    ap.add_argument("--no-enrollments-size", type=parse_count, default=None,
                    help="also run this size without enrollments (every participant x every program)")
    ap.add_argument("--catalogue", type=parse_count, default=5_000,
                    help="programs in the compile + dbt parse catalogue (0: skip)")
    ap.add_argument("--example-repeats", type=int, default=3,
                    help="runs of the example on a new path and on the same path each (0: skip)")
    ap.add_argument("--threads", type=int, default=None, help="--threads passed to incentives run")
    ap.add_argument("--explain", type=int, default=0, help="EXPLAIN ANALYZE the K slowest models of each run")
    ap.add_argument("--floor-repeats", type=int, default=3, help="floor runs (the median is reported)")
    ap.add_argument("--engine-repeats", type=int, default=1,
                    help="`incentives run` of each size and shape, each on a new database path (the median is reported)")
    ap.add_argument("--spark-thrift", action="store_true",
                    help="also run each size through the Spark Thrift server (scripts/start-spark-cluster.sh first)")
    ap.add_argument("--spark-schema", default="bench", help="the server's database of the Spark results")
    ap.add_argument("--spark-top", type=int, default=8, help="the costliest Spark stages shown")
    ap.add_argument("--spark-example-repeats", type=int, default=3,
                    help="runs of the example through the cluster after its first run (0: the first run only)")
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--out", type=Path, default=BENCH / "results.md")
    args = ap.parse_args(argv)

    machine_text = machine()
    print(f"Machine: {machine_text}", flush=True)
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    unknown = [s for s in shapes if s not in SHAPES]
    if unknown:
        ap.error(f"unknown shape(s) {', '.join(unknown)}: choose among {', '.join(SHAPES)}")
    results, spark, spark_ex = [], [], None
    if args.spark_thrift:
        spark_ex = spark_example(args.spark_schema, args.spark_example_repeats)
    for size in [parse_count(s) for s in args.sizes.split(",") if s.strip()]:
        for shape in shapes:
            results.append(bench_size(size, args.participants, args.programs, args.seed, True, args.threads,
                                      args.explain, args.floor_repeats, shape, args.engine_repeats))
            if args.spark_thrift:
                spark.append(bench_spark_thrift(results[-1], args.spark_schema, args.spark_top))
    if args.no_enrollments_size:
        results.append(bench_size(args.no_enrollments_size, args.participants, args.programs, args.seed, False,
                                  args.threads, args.explain, args.floor_repeats, engine_repeats=args.engine_repeats))
    example = example_runs(args.example_repeats) if args.example_repeats else None
    cat = catalogue(args.catalogue, args.seed) if args.catalogue else None
    text = report(machine_text, results, cat, args, spark, example, spark_ex)
    print("\n" + text)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(text)
    print(f"written to {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
