"""The benchmark's Spark Thrift server run (`python bench/run.py --spark-thrift`): the same generated
data through `incentives run --target spark_thrift` on the local cluster of
scripts/start-spark-cluster.sh, and where its time went, read from the server application's Spark
REST API (http://127.0.0.1:<ui port>/api/v1): the stages of this run by executor run time, each
with the dbt node its statement belongs to (dbt's query comment carries the node id, and the Thrift
server makes the statement the job's description), and in a file the physical plan of their SQL
execution with the operators' time metrics whose slowest task ran in that stage (a metric's total
covers all its tasks, which may span stages, and a code-generated stage's duration includes the
operators it pipelines: read them as pointers, not as the stage's split). Prints figures; asserts
nothing about time.
"""

from __future__ import annotations

import json
import os
import re
import socket
import urllib.request
from collections import defaultdict
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
PROJECT = BENCH.parent
CLK_TCK = os.sysconf("SC_CLK_TCK")
NODE_ID = re.compile(r'"node_id":\s*"([^"]+)"')
STAGE_REF = re.compile(r"\(stage (\d+)\.\d+: task \d+\)")
DURATION = re.compile(r"^([\d.,]+) (ms|s|m|h)\b")
UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def cluster_dir() -> Path:
    return Path(os.environ.get("INCENTIVES_SPARK_CLUSTER_DIR") or PROJECT / "spark-cluster").resolve()


def ui_url() -> str:
    """The Thrift server application's UI, as scripts/start-spark-cluster.sh finds it: the port in
    the server's log (Spark takes the next free port when 4040 is taken)."""
    if os.environ.get("INCENTIVES_SPARK_UI_URL"):
        return os.environ["INCENTIVES_SPARK_UI_URL"].rstrip("/")
    log = cluster_dir() / "logs" / "thriftserver.log"
    port = None
    if log.exists():
        for m in re.finditer(r"Successfully started service 'SparkUI' on port (\d+)", log.read_text(errors="replace")):
            port = m.group(1)
    return f"http://127.0.0.1:{port or os.environ.get('INCENTIVES_SPARK_UI_PORT', '4040')}"


def server_accepts() -> bool:
    host = os.environ.get("INCENTIVES_SPARK_THRIFT_HOST", "127.0.0.1")
    port = int(os.environ.get("INCENTIVES_SPARK_THRIFT_PORT", "10000"))
    try:
        socket.create_connection((host, port), timeout=3).close()
        return True
    except OSError:
        return False


class SparkRest:
    """GETs against /api/v1 of the server's one application."""

    def __init__(self, base: str) -> None:
        self.base = base
        apps = self.get("/applications")
        named = [a for a in apps if a.get("name") == "incentives-thrift-server"] or apps
        if not named:
            raise SystemExit(f"no application at {base}/api/v1/applications")
        self.app = named[0]["id"]

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.base}/api/v1{path}", timeout=60) as resp:
            return json.loads(resp.read())

    def app_get(self, path: str) -> Any:
        return self.get(f"/applications/{self.app}{path}")

    def marks(self) -> dict[str, int]:
        """The highest stage, job and SQL execution ids so far: this run's are above them."""
        stages = self.app_get("/stages")
        jobs = self.app_get("/jobs")
        sql = self.app_get("/sql?details=false&offset=0&length=1000000")
        return {"stage": max((s["stageId"] for s in stages), default=-1),
                "job": max((j["jobId"] for j in jobs), default=-1),
                "sql": max((e["id"] for e in sql), default=-1)}


# ----------------------------------------------------------------------------- cluster CPU

def _children() -> dict[int, list[int]]:
    out: dict[int, list[int]] = defaultdict(list)
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            out[int(stat[stat.rindex(")") + 2:].split()[1])].append(int(name))
    return out


def cluster_pids() -> list[int]:
    """The processes scripts/start-spark-cluster.sh started (its pid files) and their descendants
    (the executors are children of the workers)."""
    roots = []
    for f in sorted((cluster_dir() / "pids").glob("*.pid")):
        try:
            roots.append(int(f.read_text().strip()))
        except ValueError:
            pass
    children, seen, stack = _children(), [], list(roots)
    while stack:
        pid = stack.pop()
        seen.append(pid)
        stack.extend(children.get(pid, []))
    return seen


def cluster_cpu_seconds() -> float:
    """User + system CPU seconds so far of the cluster's live processes."""
    total = 0
    for pid in cluster_pids():
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / CLK_TCK


def cluster_rss() -> int:
    page = os.sysconf("SC_PAGE_SIZE")
    total = 0
    for pid in cluster_pids():
        try:
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
        except OSError:
            pass
    return total


# ---------------------------------------------------------------------------------- stages

def _duration_seconds(value: str) -> float | None:
    """The total of a timing metric ("total (min, med, max (stageId: taskId))\\n12.3 s (...)")."""
    lines = value.strip().splitlines()
    text = lines[1] if len(lines) > 1 and lines[0].startswith("total") else lines[0] if lines else ""
    m = DURATION.match(text.strip())
    if not m:
        return None
    return float(m.group(1).replace(",", "")) * UNIT_SECONDS[m.group(2)]


def _statement(description: str) -> str:
    """The first lines of SQL of a statement, without dbt's query comment and blank lines."""
    text = re.sub(r"/\*.*?\*/", " ", description or "", count=1, flags=re.S)
    return " ".join(text.split())[:160]


def _owner(description: str) -> str:
    m = NODE_ID.search(description or "")
    if m:
        return m.group(1).split(".", 2)[-1] if m.group(1).startswith("model.") else m.group(1).split(".")[0] + " " + m.group(1).split(".")[-1]
    return "incentives (load, record, swap)"


def collect(rest: SparkRest, marks: dict[str, int], out: Path, top: int = 8) -> dict:
    """This run's stages (ids above `marks`), the costliest first, with their dbt node and the
    operators of their SQL execution whose metrics name them; per-model totals. Writes the plans of
    the costliest stages' executions to `out`."""
    stages = [s for s in rest.app_get("/stages") if s["stageId"] > marks["stage"]]
    jobs = [j for j in rest.app_get("/jobs") if j["jobId"] > marks["job"]]
    executions = [e for e in rest.app_get("/sql?details=false&offset=0&length=1000000") if e["id"] > marks["sql"]]
    job_of_stage = {sid: j for j in jobs for sid in j.get("stageIds", [])}
    execution_of_job = {jid: e for e in executions
                        for jid in (*e.get("successJobIds", []), *e.get("failedJobIds", []), *e.get("runningJobIds", []))}
    rows = []
    for s in stages:
        description = s.get("description") or job_of_stage.get(s["stageId"], {}).get("description") or ""
        job = job_of_stage.get(s["stageId"])
        execution = execution_of_job.get(job["jobId"]) if job else None
        rows.append(dict(
            stage=s["stageId"], attempt=s.get("attemptId", 0), status=s.get("status"), owner=_owner(description),
            statement=_statement(description), run=s.get("executorRunTime", 0) / 1000,
            cpu=s.get("executorCpuTime", 0) / 1e9, gc=s.get("jvmGcTime", 0) / 1000, tasks=s.get("numTasks", 0),
            input=s.get("inputBytes", 0), input_rows=s.get("inputRecords", 0),
            shuffle_read=s.get("shuffleReadBytes", 0), shuffle_write=s.get("shuffleWriteBytes", 0),
            shuffle_write_rows=s.get("shuffleWriteRecords", 0), output_rows=s.get("outputRecords", 0),
            spill=s.get("diskBytesSpilled", 0), name=s.get("name", ""), execution=execution["id"] if execution else None,
            operators=[]))
    rows.sort(key=lambda r: -r["run"])
    by_model: dict[str, dict[str, float]] = defaultdict(lambda: {"stages": 0, "run": 0.0, "cpu": 0.0, "shuffle": 0})
    for r in rows:
        m = by_model[r["owner"]]
        m["stages"] += 1
        m["run"] += r["run"]
        m["cpu"] += r["cpu"]
        m["shuffle"] += r["shuffle_read"] + r["shuffle_write"]
    lines = [f"Spark REST API {rest.base}/api/v1/applications/{rest.app}: {len(rows)} stages of this run "
             f"(stage ids > {marks['stage']}), costliest first", ""]
    plans_done: set[int] = set()
    for r in rows[:top]:
        if r["execution"] is None:
            continue
        detail = rest.app_get(f"/sql/{r['execution']}?details=true&planDescription=true")
        ops = []
        for node in detail.get("nodes", []):
            for metric in node.get("metrics", []):
                value = str(metric.get("value", ""))
                if f"(stage {r['stage']}." not in value:
                    continue
                seconds = _duration_seconds(value) if "time" in metric["name"] or "duration" in metric["name"] else None
                if seconds is not None:
                    ops.append((seconds, node.get("nodeName", "?"), metric["name"]))
        ops.sort(key=lambda x: -x[0])
        r["operators"] = ops[:6]
        lines.append(f"== stage {r['stage']} ({r['owner']}): executor run {r['run']:.1f}s, CPU {r['cpu']:.1f}s, "
                     f"GC {r['gc']:.1f}s, {r['tasks']} tasks, input {r['input'] / 2**20:.1f} MB "
                     f"({r['input_rows']:,} rows), shuffle read {r['shuffle_read'] / 2**20:.1f} MB, write "
                     f"{r['shuffle_write'] / 2**20:.1f} MB ({r['shuffle_write_rows']:,} rows), output rows "
                     f"{r['output_rows']:,}, spill {r['spill'] / 2**20:.1f} MB; SQL execution {r['execution']}")
        lines.append(f"   statement: {r['statement']}")
        lines.append("   operators' time metrics whose slowest task ran in this stage (totals over all their tasks):")
        for seconds, node, metric in ops[:12]:
            lines.append(f"   {seconds:9.2f}s  {node}: {metric}")
        if r["execution"] not in plans_done:
            plans_done.add(r["execution"])
            lines += ["", "   -- physical plan of the execution", detail.get("planDescription", "")]
        lines.append("")
    out.write_text("\n".join(lines) + "\n")
    models = sorted(((k, v) for k, v in by_model.items()), key=lambda kv: -kv[1]["run"])
    return {"stages": rows, "models": models, "stage_count": len(rows), "app": rest.app, "ui": rest.base}


def summary_block(output: str) -> str:
    """The `Summary` lines of `incentives run` without its timings: equal on two engines when the
    results agree (totals to the cent per strategy, counts, warnings)."""
    m = re.search(r"^Summary\n(.*?)(?=^\s*timings|\Z)", output, re.M | re.S)
    return m.group(1).strip() if m else ""
