"""The command line: located errors without tracebacks, and failed runs keep earlier results."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples"
CLI = [sys.executable, "-m", "compiler.cli"]


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, *args], cwd=ROOT, capture_output=True, text=True, timeout=300)


def _program_variant(tmp_path: Path, mutate) -> Path:
    data = json.loads((EXAMPLE / "programs.json").read_text())
    mutate(data["programs"])
    path = tmp_path / "programs.json"
    path.write_text(json.dumps(data))
    return path


def _set(path: list, value):
    def mutate(programs: list) -> None:
        node = programs
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return mutate


BAD_PROGRAMS = [
    ("unknown qualification type", _set([0, "qualifications", 0, "type"], "aggregated_amout"),
     ["programs[0].qualifications[0].type", "aggregated_amout"]),
    ("unknown operator", _set([0, "qualifications", 0, "operator"], "at_least"), ["operator", "at_least"]),
    ("unknown strategy", _set([0, "offers", 0, "strategy_key"], "tiered"), ["strategy_key", "tiered"]),
    ("invalid calculator for strategy", _set([0, "offers", 0, "calculator_key"], "dollars_per_coverage_unit"),
     ["calculator_key", "dollars_per_coverage_unit"]),
    ("period ends before start", _set([0, "time_periods", 0, "end_date"], "2024-01-01"), ["end_date", "2024-01-01"]),
    ("bad date", _set([0, "time_periods", 0, "start_date"], "2025-13-40"), ["start_date", "2025-13-40"]),
    ("qualifier syntax", _set([0, "qualifier"], "min_purchases AND (yoy_growth OR"), ["qualifier", "position"]),
    ("qualifier unknown key", _set([0, "qualifier"], "min_purchases AND nothing_here"), ["nothing_here"]),
    ("non-numeric value", _set([0, "qualifications", 0, "value"], "lots"), ["value", "lots"]),
    ("unknown period key", _set([0, "qualifications", 0, "numerator", "filters", 0, "period_key"], "someday"), ["someday"]),
]


@pytest.mark.parametrize("name,mutate,needles", BAD_PROGRAMS, ids=[b[0] for b in BAD_PROGRAMS])
def test_validate_reports_located_problem(tmp_path: Path, name: str, mutate, needles: list[str]) -> None:
    result = _cli("validate", str(_program_variant(tmp_path, mutate)))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr


def test_not_json_gives_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "programs.json"
    path.write_text('{"programs": [\n  {"key": "a",}\n]}')
    result = _cli("validate", str(path))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "line 2 column" in result.stderr


def test_every_problem_at_once(tmp_path: Path) -> None:
    def mutate(programs: list) -> None:
        programs[0]["qualifications"][0]["type"] = "nope"
        programs[1]["offers"][0]["strategy_key"] = "nope2"
    result = _cli("validate", str(_program_variant(tmp_path, mutate)))
    assert "nope" in result.stderr and "nope2" in result.stderr


def _digest(database: Path) -> str:
    con = duckdb.connect(str(database), read_only=True)
    try:
        h = hashlib.sha256()
        for table in ("qualification_results", "potential_earnings", "offer_results"):
            for row in con.execute(f"select * from main.{table} order by all").fetchall():
                h.update(repr(row).encode())
        return h.hexdigest()
    finally:
        con.close()


def test_failed_run_keeps_previous_results(tmp_path: Path) -> None:
    database = tmp_path / "results.duckdb"
    ok = _cli("run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(EXAMPLE / "data"),
              "--database", str(database))
    assert ok.returncode == 0, ok.stderr
    assert "potential earnings" in ok.stdout
    before = _digest(database)

    bad = tmp_path / "bad"
    shutil.copytree(EXAMPLE / "data", bad)
    with open(bad / "transactions.csv", "a") as fh:  # a duplicate transaction_id
        fh.write((EXAMPLE / "data" / "transactions.csv").read_text().splitlines()[1] + "\n")
    reader = duckdb.connect(str(database), read_only=True)  # a BI tool holding the results open
    try:
        failed = _cli("run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(bad),
                      "--database", str(database))
        assert reader.execute("select count(*) from main.offer_results").fetchone()[0] > 0
    finally:
        reader.close()
    assert failed.returncode == 1
    assert "Traceback" not in failed.stderr
    assert "duplicate transaction_id" in failed.stderr and "line 4029" in failed.stderr
    assert _digest(database) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad", "results.duckdb"]


def test_missing_required_column(tmp_path: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE / "data", data)
    (data / "products.csv").write_text("sku\nabc\n")
    result = _cli("run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(data),
                  "--database", str(tmp_path / "r.duckdb"))
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "products.csv" in result.stderr and "sku_key" in result.stderr


def test_each_set_of_vars_keeps_its_saved_parse(tmp_path: Path) -> None:
    """Runs that alternate sets of vars (a run, then one with the forecast, then a run again) each
    find their own saved parse in place: dbt, which keeps one per folder and parses the whole project
    again for other vars, reuses it. Here a stand-in for dbt writes a parse when it finds none of its
    vars, as dbt does; the third run finds the first run's and writes nothing."""
    from compiler.run.build import SAVED_PARSES, saved_parse_of

    saved = tmp_path / "partial_parse.msgpack"
    written: list[str] = []

    def dbt(dbt_vars: str) -> None:
        parse = f"parse of {json.loads(dbt_vars)}"  # dbt compares the vars, not their text
        with saved_parse_of(tmp_path, dbt_vars, None):
            if not saved.exists() or saved.read_text() != parse:
                saved.write_text(parse)
                written.append(dbt_vars)

    plain, forecast = '{"incentives_run_context": true}', '{"incentives_using_forecast": true, "incentives_run_context": true}'
    for dbt_vars in (plain, forecast, plain, '{"incentives_run_context":true}', forecast):
        dbt(dbt_vars)
    assert written == [plain, forecast]
    assert len(list((tmp_path / SAVED_PARSES).iterdir())) == 2
