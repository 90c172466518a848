"""Runs are safe: SIGKILL mid-run keeps the previous results, readers keep reading during a run, and
mutated program JSON gives a build or a located error, never a traceback."""

from __future__ import annotations

import copy
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import duckdb
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from compiler.compile.programs import compile_text
from compiler.errors import ProgramError
from tests.harness import read_results
from tests.test_bad_inputs import _digest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples"
PROGRAMS = json.loads((EXAMPLE / "programs.json").read_text())


def _run_args(programs: Path, database: Path) -> list[str]:
    return [sys.executable, "-m", "compiler.cli", "run", "--programs", str(programs),
            "--data", str(EXAMPLE / "data"), "--database", str(database)]


def _variant(tmp_path: Path) -> Path:
    """The example with every percent_of_amount standard rate doubled (different results)."""
    data = copy.deepcopy(PROGRAMS)
    for program in data["programs"]:
        for offer in program["offers"]:
            for incentive in offer.get("incentives") or []:
                for rate in incentive["rates"]:
                    rate["rate"] = rate["rate"] * 2
    path = tmp_path / "variant.json"
    path.write_text(json.dumps(data))
    return path


@pytest.fixture()
def built(tmp_path: Path) -> Path:
    database = tmp_path / "results.duckdb"
    done = subprocess.run(_run_args(EXAMPLE / "programs.json", database), cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return database


@pytest.mark.parametrize("after", ["Loading", "Building", "model", "test"])
def test_sigkill_keeps_previous_results(tmp_path: Path, built: Path, after: str) -> None:
    before = _digest(built)
    proc = subprocess.Popen(_run_args(_variant(tmp_path), built), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # kill as soon as the run reaches this stage
        if after in line:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    assert proc.returncode == -signal.SIGKILL
    assert _digest(built) == before
    # the next run cleans up what the killed one left and succeeds
    again = subprocess.run(_run_args(_variant(tmp_path), built), cwd=ROOT, capture_output=True, text=True)
    assert again.returncode == 0, again.stderr
    assert _digest(built) != before
    assert sorted(p.name for p in built.parent.iterdir()) == ["results.duckdb", "variant.json"]


def test_ctrl_c_during_build_keeps_previous_results(tmp_path: Path, built: Path) -> None:
    before = _digest(built)
    proc = subprocess.Popen(_run_args(_variant(tmp_path), built), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert proc.stdout is not None and proc.stderr is not None
    for line in proc.stdout:  # dbt is building models
        if "model" in line:
            break
    proc.send_signal(signal.SIGINT)
    out = proc.stdout.read()
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, err
    assert "error: interrupted; the previous results are unchanged" in err
    assert "Traceback" not in out + err and "Encountered an error" not in out  # not reported as a crash
    assert _digest(built) == before
    assert sorted(p.name for p in built.parent.iterdir()) == ["results.duckdb", "variant.json"]


def test_ctrl_c_during_a_duckdb_query_is_an_interruption(tmp_path: Path, python_sigint: None, monkeypatch: pytest.MonkeyPatch,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    # DuckDB's Python client answers Ctrl-C during a query (loading the files) with an error of the
    # query, not a KeyboardInterrupt: it is still reported as an interruption, not an internal error
    import compiler.runner
    from compiler.cli import main

    def interrupted(*args: Any, **kwargs: Any) -> None:
        try:  # Ctrl-C during a query: DuckDB sees the KeyboardInterrupt of Python's handler ...
            os.kill(os.getpid(), signal.SIGINT)
            time.sleep(10)
        except KeyboardInterrupt:
            raise RuntimeError("Query interrupted") from None  # ... and raises this (DuckDB 2.0)

    monkeypatch.setattr(compiler.runner, "run", interrupted)
    code = main(["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(EXAMPLE / "data"),
                 "--database", str(tmp_path / "x.duckdb")])
    assert code == 130
    assert "error: interrupted; the previous results are unchanged" in capsys.readouterr().err


def test_reader_keeps_reading_during_a_run(tmp_path: Path, built: Path) -> None:
    reader = duckdb.connect(str(built), read_only=True)
    try:
        old_total = reader.execute("select sum(incentive_amount) from main.offer_results").fetchone()[0]
        done = subprocess.run(_run_args(_variant(tmp_path), built), cwd=ROOT, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        assert reader.execute("select sum(incentive_amount) from main.offer_results").fetchone()[0] == old_total
    finally:
        reader.close()
    fresh = duckdb.connect(str(built), read_only=True)
    try:
        assert fresh.execute("select sum(incentive_amount) from main.offer_results").fetchone()[0] != old_total
        assert fresh.execute("select count(*) from main.runs").fetchone()[0] == 2
    finally:
        fresh.close()


# ------------------------------------------------------------------ fuzzing program JSON

def _paths(node: Any, prefix: tuple = ()) -> list[tuple]:
    out = [prefix]
    if isinstance(node, dict):
        for key, value in node.items():
            out += _paths(value, (*prefix, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            out += _paths(value, (*prefix, i))
    return out


JUNK = [None, True, 0, -1, 1.5, "", "x", "2026-13-01", [], {}, [1, "a"], {"a": 1}, "AND", "(", "1e400"]


def _mutate(data: dict, rnd: random.Random, steps: int) -> dict:
    data = copy.deepcopy(data)
    for _ in range(steps):
        paths = [p for p in _paths(data) if p]
        path = rnd.choice(paths)
        parent: Any = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = rnd.choice(["drop", "retype", "rename", "qualifier", "duplicate"])
        if action == "drop":
            del parent[last]
        elif action == "retype":
            parent[last] = copy.deepcopy(rnd.choice(JUNK))
        elif action == "rename" and isinstance(parent, dict):
            parent[str(last) + rnd.choice(["_x", "s", ""])] = parent.pop(last)
        elif action == "qualifier":
            program = rnd.choice(data.get("programs") or [{}]) if isinstance(data.get("programs"), list) else {}
            if isinstance(program, dict):
                words = ["AND", "OR", "and", "(", ")", "min_purchases", "yoy_growth", "business_plan", "zzz"]
                program["qualifier"] = " ".join(rnd.choice(words) for _ in range(rnd.randint(0, 7)))
        elif action == "duplicate" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))
    return data


def _outcome(data: dict) -> str:
    try:
        compile_text(json.dumps(data))
        return "compiled"
    except ProgramError as exc:
        text = exc.render()
        assert exc.issues, text
        for issue in exc.issues:
            assert "programs[" in issue.where or "programs" in issue.where, issue.render()
        return "refused"


@settings(max_examples=int(os.environ.get("INCENTIVES_FUZZ_EXAMPLES", "300")), deadline=None,
          derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(min_value=0, max_value=2**32 - 1), steps=st.integers(min_value=1, max_value=4))
def test_fuzz_mutated_programs_compile_or_give_located_errors(seed: int, steps: int) -> None:
    _outcome(_mutate(PROGRAMS, random.Random(seed), steps))


def test_fuzz_compiled_mutants_build(tmp_path: Path) -> None:
    """Mutants that compile also build (a few, end to end)."""
    from compiler.runner import run

    built = 0
    for seed in range(500):
        data = _mutate(PROGRAMS, random.Random(seed), 2)
        if _outcome(data) != "compiled" or data == PROGRAMS:
            continue
        path = tmp_path / f"mutant{seed}.json"
        path.write_text(json.dumps(data))
        run(path, EXAMPLE / "data", tmp_path / "mutant.duckdb", say=lambda _: None)
        assert read_results(tmp_path / "mutant.duckdb")["offer_results"] is not None
        built += 1
        if built == 3:
            break
    assert built == 3
