"""Two runs on one target: the run lock (compiler/run/locks.py).

Exactly one of two runs started at once builds; the other exits 1 at once, naming the run that
holds the target, and touches nothing of it; with --wait both succeed one after the other; a run
killed with kill -9 while it holds the lock does not block the next one."""

from __future__ import annotations

import fcntl
import json
import os
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from compiler.cli import main
from compiler.run.locks import FileLock, RunInProgress, duckdb_lock
from compiler.run.record import file_sha256
from tests.harness import ENGINES, normalized, read_results, read_tables
from tests.test_bad_inputs import _digest
from tests.test_robustness import EXAMPLE, ROOT, _run_args, _variant

BUSY = re.compile(r"^error: another run is in progress on (.+) \(pid (\d+), started \d{4}-\d\d-\d\dT[\d:]+Z\)",
                  re.MULTILINE)
needs_postgres = pytest.mark.skipif("postgres" not in ENGINES, reason="postgres is not in INCENTIVES_ENGINES")


def _start(args: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)


def _finish(procs: list[subprocess.Popen[str]]) -> list[tuple[int, str, str]]:
    out = []
    for proc in procs:
        stdout, stderr = proc.communicate(timeout=300)
        out.append((proc.returncode, stdout, stderr))
    return out


def _pg_args(programs: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "compiler.cli", "run", "--target", "postgres", "--programs", str(programs),
            "--data", str(EXAMPLE / "data"), *extra]


def _tables(database: Path) -> dict[str, list]:
    tables = read_results(database)
    return {name: normalized([{k: v for k, v in r.items() if k != "run_id"} for r in rows])
            for name, rows in tables.items()}


def test_two_runs_at_once_on_duckdb(tmp_path: Path) -> None:
    database = tmp_path / "results.duckdb"
    programs = [EXAMPLE / "programs.json", _variant(tmp_path)]
    results = _finish([_start(_run_args(p, database)) for p in programs])
    codes = sorted(code for code, _, _ in results)
    assert codes == [0, 1], results
    winner = next(i for i, (code, _, _) in enumerate(results) if code == 0)
    _, _, err = results[1 - winner]
    busy = BUSY.search(err)
    assert busy and busy.group(1) == str(database.resolve()), err
    assert "Traceback" not in err and "internal error" not in err
    # the file holds the complete results of the run that built, as a run of it alone gives them
    alone = tmp_path / "alone" / "results.duckdb"
    done = subprocess.run(_run_args(programs[winner], alone), cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert _tables(database) == _tables(alone)
    runs = read_results(database, ("runs",))["runs"]
    assert [r["programs_sha256"] for r in runs] == [file_sha256(programs[winner])]
    assert sorted(p.name for p in database.parent.iterdir()) == ["alone", "results.duckdb", "variant.json"]


def test_two_runs_with_wait_both_succeed(tmp_path: Path) -> None:
    database = tmp_path / "results.duckdb"
    programs = [EXAMPLE / "programs.json", _variant(tmp_path)]
    results = _finish([_start([*_run_args(p, database), "--wait", "300"]) for p in programs])
    assert [code for code, _, _ in results] == [0, 0], results
    runs = read_results(database, ("runs",))["runs"]
    assert sorted(r["programs_sha256"] for r in runs) == sorted(file_sha256(p) for p in programs)
    assert sorted(p.name for p in database.parent.iterdir()) == ["results.duckdb", "variant.json"]


def test_killed_run_does_not_block_the_next(tmp_path: Path) -> None:
    database = tmp_path / "results.duckdb"
    proc = subprocess.Popen(_run_args(EXAMPLE / "programs.json", database), cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    assert proc.stdout is not None
    for line in proc.stdout:  # the run holds the lock and is building
        if "Building" in line:
            break
    os.killpg(proc.pid, signal.SIGKILL)
    proc.wait(timeout=60)
    lock = database.with_name("results.duckdb.lock")
    assert f"pid {proc.pid}," in lock.read_text()  # the dead run's lock file stays behind ...
    done = subprocess.run(_run_args(EXAMPLE / "programs.json", database), cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr  # ... and is taken over without waiting
    assert f"Taking over the lock of an ended run (pid {proc.pid}," in done.stdout
    assert sorted(p.name for p in database.parent.iterdir()) == ["results.duckdb"]


def test_busy_target_is_left_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A run that finds the lock taken touches nothing: not the live run's building file, not the
    results; with --wait it gives up after the time given."""
    database = tmp_path / "results.duckdb"
    assert main(["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(EXAMPLE / "data"),
                 "--database", str(database)]) == 0
    before = _digest(database)
    with duckdb_lock(database.resolve()).acquire():  # a live run, in the middle of its build
        building = database.with_name("results.duckdb.building") / "incentives.duckdb"
        building.parent.mkdir()
        building.write_bytes(b"the live run's file")
        capsys.readouterr()
        for extra in ([], ["--wait", "0.5"]):
            assert main(["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(EXAMPLE / "data"),
                         "--database", str(database), *extra]) == 1
            err = capsys.readouterr().err
            assert f"another run is {'still ' if extra else ''}in progress on {database.resolve()} (pid {os.getpid()}," \
                in err, err
            assert building.read_bytes() == b"the live run's file"
            assert _digest(database) == before
        building.unlink()
        building.parent.rmdir()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["results.duckdb"]


def test_refused_run_names_a_holder_that_has_not_written_yet(tmp_path: Path) -> None:
    """The holder writes its pid and start time just after it takes the lock; a run refused in
    between (a busy machine) still names it, instead of an empty owner."""
    path = tmp_path / "results.duckdb.lock"
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)  # taken, not written yet
    writer = threading.Timer(0.3, os.pwrite, (fd, b"pid 4242, started 2026-01-01T00:00:00Z\n", 0))
    writer.start()
    try:
        with pytest.raises(RunInProgress, match=r"in progress on x \(pid 4242, started 2026-01-01T00:00:00Z\)"):
            FileLock(path, "x").acquire()
    finally:
        writer.join()
        os.close(fd)


def test_wait_must_be_seconds(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["run", "--programs", "p.json", "--data", "d", "--database", "x.duckdb", "--wait", "soon"])
    assert exit_.value.code == 2
    assert "expected a number of seconds" in capsys.readouterr().err


# ------------------------------------------------------------------ PostgreSQL


def _pg_runs() -> list[dict]:
    try:
        return read_tables("postgres", ("runs",))["runs"]
    except Exception:  # no runs yet
        return []


@needs_postgres
def test_two_runs_at_once_on_postgres(tmp_path: Path) -> None:
    from compiler.targets.warehouse import target_settings

    programs = [EXAMPLE / "programs.json", _variant(tmp_path)]
    runs_before = len(_pg_runs())
    results = _finish([_start(_pg_args(p)) for p in programs])
    assert sorted(code for code, _, _ in results) == [0, 1], results
    winner = next(i for i, (code, _, _) in enumerate(results) if code == 0)
    err = results[1 - winner][2]
    schema = target_settings("postgres")["schema"]
    busy = BUSY.search(err)
    assert busy and busy.group(1) == f"schema {schema} of target postgres", err
    runs = _pg_runs()
    assert len(runs) == runs_before + 1
    last = max(runs, key=lambda r: r["run_id"])
    assert last["programs_sha256"] == file_sha256(programs[winner])
    # complete results of the winner: every row carries its run id, as many rows as it counted
    tables = read_tables("postgres", ("offer_results", "potential_earnings"))
    counts = json.loads(last["row_counts"])
    for name, rows in tables.items():
        assert {r["run_id"] for r in rows} == {last["run_id"]}
        assert len(rows) == counts[name]


@needs_postgres
def test_two_runs_with_wait_on_postgres(tmp_path: Path) -> None:
    programs = [EXAMPLE / "programs.json", _variant(tmp_path)]
    runs_before = len(_pg_runs())
    results = _finish([_start(_pg_args(p, "--wait", "300")) for p in programs])
    assert [code for code, _, _ in results] == [0, 0], results
    assert len(_pg_runs()) == runs_before + 2


@needs_postgres
def test_busy_postgres_schema_is_left_untouched(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from compiler.targets import get_target
    from compiler.targets.warehouse import connect, target_settings

    settings = target_settings("postgres")
    schema = settings["schema"]
    warehouse = connect("postgres")
    with get_target("postgres", settings=settings).lock().acquire():  # a live run, loading its inputs
        try:
            warehouse.create_schema(f"{schema}__building_raw")
            assert main(["run", "--target", "postgres", "--programs", str(EXAMPLE / "programs.json"),
                         "--data", str(EXAMPLE / "data")]) == 1
            err = capsys.readouterr().err
            assert f"another run is in progress on schema {schema} of target postgres (pid {os.getpid()}," in err, err
            assert warehouse.schema_exists(f"{schema}__building_raw")
        finally:
            warehouse.drop_schema(f"{schema}__building_raw")
            warehouse.close()
