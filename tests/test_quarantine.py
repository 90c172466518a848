"""`incentives run --skip-invalid-programs` and `--skip-invalid-rows`: the valid programs and rows are
computed exactly as a run on them alone would compute them, the refused ones are listed in the
summary and in the tables rejected_programs and rejected_rows, and the exit code is 3."""

from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from compiler.cli import main
from tests.harness import DUCKDB_AND_POSTGRES, engine_params, normalized, read_results, read_target_results
from tests.test_bad_inputs import _digest

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples"
PROGRAMS = json.loads((EXAMPLE / "programs.json").read_text())["programs"]
TABLES = ("qualification_results", "potential_earnings", "offer_results", "stack_coverage")
REJECTED = ("rejected_programs", "rejected_rows")


def _bad_catalogue() -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[tuple[str, str], str]]:
    """The example's programs, three of them made invalid: (catalogue, the valid ones alone,
    (program key, JSON path) -> words of each expected message)."""
    programs = copy.deepcopy(PROGRAMS)
    programs[1]["qualifier"] = "min_purchases AND nothing_here"
    # the same SKU in two sets of one stack
    sets = programs[3]["offers"][0]["incentive"]["sku_sets"]
    sets[1]["conversion"]["rates"].append(copy.deepcopy(sets[0]["conversion"]["rates"][0]))
    programs[5]["offers"][0]["calculator_key"] = "dollars_per_coverage_unit"
    valid = [p for i, p in enumerate(programs) if i not in (1, 3, 5)]
    expected = {
        (programs[1]["key"], "programs[1].qualifier"): "qualifier names unknown qualification 'nothing_here'",
        (programs[3]["key"], "programs[3].offers[0].incentive.stacks[0].sku_set_keys"):
            "SKU 'northfield_corn_seed_nf6120_unit_38841' is in two sets of this stack",
        (programs[5]["key"], "programs[5].offers[0].calculator_key"): "calculator not valid with strategy 'standard'",
    }
    return programs, valid, expected


def _run(engine: str, programs: Path, data: Path, database: Path, *flags: str) -> int:
    target = ["--database", str(database)] if engine == "duckdb" else ["--target", engine]
    return main(["run", "--programs", str(programs), "--data", str(data), *target, *flags])


def _results(engine: str, workdir: Path) -> dict[str, list]:
    tables = read_target_results(engine, workdir, TABLES)
    return {name: normalized([{k: v for k, v in r.items() if k != "run_id"} for r in rows])
            for name, rows in tables.items()}


# DuckDB and PostgreSQL, as test_skip_invalid_rows (why: docs/testing.md)
@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_skip_invalid_programs(engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalogue, valid, expected = _bad_catalogue()
    full = tmp_path / "catalogue.json"
    full.write_text(json.dumps({"programs": catalogue}))
    alone = tmp_path / "valid.json"
    alone.write_text(json.dumps({"programs": valid}))
    database = tmp_path / "results.duckdb"
    data = EXAMPLE / "data"

    # the valid programs alone: the reference, on DuckDB for every engine (the engines' results are
    # the same, test_engines.py; a second full build on a warehouse would only repeat that test)
    reference_dir = tmp_path if engine == "duckdb" else tmp_path / "reference"
    reference_dir.mkdir(exist_ok=True)
    assert _run("duckdb", alone, data, reference_dir / "results.duckdb") == 0
    reference = _results("duckdb", reference_dir)
    if engine == "duckdb":
        before = _digest(database)
    capsys.readouterr()

    # strict (the default): refused as a whole, with every problem, nothing changed
    assert _run(engine, full, data, database) == 1
    err = capsys.readouterr().err
    for message in expected.values():
        assert message in err
    if engine == "duckdb":
        assert _digest(database) == before

    assert _run(engine, full, data, database, "--skip-invalid-programs") == 3
    out, err = capsys.readouterr()
    assert "warning: completed with rejections: 3 programs left out" in err
    assert "rejected programs               3  (left out; table rejected_programs)" in out
    for (key, path), message in expected.items():
        assert f"program '{key}' at {path}: {message}" in out
    assert _results(engine, tmp_path) == reference

    tables = read_target_results(engine, tmp_path, (*REJECTED, "runs"))
    last = max(tables["runs"], key=lambda r: r["run_id"])
    rejected = tables["rejected_programs"]
    assert {(r["program_key"], r["json_path"]) for r in rejected} == set(expected)
    for r in rejected:
        assert expected[(r["program_key"], r["json_path"])] in r["message"]
        assert r["message"].startswith(f"program '{r['program_key']}' at {r['json_path']}: {r['problem']}")
        assert r["run_id"] == last["run_id"]
    assert sorted(r["program_index"] for r in rejected) == [1, 3, 5]
    assert tables["rejected_rows"] == []
    assert json.loads(last["row_counts"])["rejected_programs"] == 3


def test_skip_invalid_programs_still_refuses_a_broken_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    catalogue, _, _ = _bad_catalogue()
    every = tmp_path / "every.json"
    every.write_text(json.dumps({"programs": [catalogue[1], catalogue[3]]}))
    not_json = tmp_path / "not.json"
    not_json.write_text('{"programs": [')
    for path, words in ((every, "every program has problems; nothing to compute"), (not_json, "not valid JSON")):
        assert _run("duckdb", path, EXAMPLE / "data", tmp_path / "r.duckdb", "--skip-invalid-programs") == 1
        assert words in capsys.readouterr().err
    assert not (tmp_path / "r.duckdb").exists()


def test_nothing_to_refuse_is_exit_0(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    database = tmp_path / "r.duckdb"
    assert _run("duckdb", EXAMPLE / "programs.json", EXAMPLE / "data", database,
                "--skip-invalid-programs", "--skip-invalid-rows") == 0
    out, err = capsys.readouterr()
    assert "rejected" not in out and "rejections" not in err
    tables = read_results(database, REJECTED)
    assert tables == {"rejected_programs": [], "rejected_rows": []}


TXN = "T9000{n},retailer_001,retailer_purchases_from_distribution,{date},prairie_pass_herbicide_2.5_gal_28816,{q},gal,{a}"
# (line appended to a file of examples/data, the (file, row, column, bad value) it is rejected with)
BAD_ROWS = [
    ("transactions", TXN.format(n=1, date="2026-01-05", q="ten", a="10"),
     [("transactions.csv", 4028, "quantity", "ten")]),
    ("transactions", TXN.format(n=2, date="2026-02-31", q="1", a="$1"),
     [("transactions.csv", 4029, "transaction_date", "2026-02-31"), ("transactions.csv", 4029, "amount", "$1")]),
    ("transactions", TXN.format(n=3, date="2026-01-05", q="1", a="1"),
     [("transactions.csv", 4030, "transaction_id", "T90003")]),
    ("transactions", TXN.format(n=3, date="2026-01-06", q="2", a="2"),  # the same id again: both are refused
     [("transactions.csv", 4031, "transaction_id", "T90003")]),
    ("prices", "agri_shield_insecticide_2.5_gal_53551,fifty,2025-09-01,",
     [("prices.csv", 6, "price", "fifty")]),
]


@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_skip_invalid_rows(engine: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE / "data", data)
    for name, line, _ in BAD_ROWS:
        with open(data / f"{name}.csv", "a") as fh:
            fh.write(line + "\n")
    database = tmp_path / "results.duckdb"
    programs = EXAMPLE / "programs.json"

    assert _run(engine, programs, EXAMPLE / "data", database) == 0  # the good rows alone
    reference = _results(engine, tmp_path)
    capsys.readouterr()

    assert _run(engine, programs, data, database, "--skip-invalid-rows") == 3
    out, err = capsys.readouterr()
    assert "warning: completed with rejections: 6 input row problems left out" in err
    assert "rejected rows                   6  (left out; table rejected_rows)" in out
    assert "transactions.csv row 4028 (line 4029) column quantity: not a number; got 'ten'" in out
    assert _results(engine, tmp_path) == reference

    tables = read_target_results(engine, tmp_path, (*REJECTED, "runs"))
    rejected = tables["rejected_rows"]
    assert sorted((r["file"], r["file_row"], r["column_name"], r["bad_value"]) for r in rejected) \
        == sorted(x for _, _, found in BAD_ROWS for x in found)
    for r in rejected:
        line = f" (line {r['file_row'] + 1})"
        assert r["message"].startswith(f"{r['file']} row {r['file_row']}{line} column {r['column_name']}: {r['problem']}")
    assert tables["rejected_programs"] == []
    last = max(tables["runs"], key=lambda r: r["run_id"])
    assert {r["run_id"] for r in rejected} == {last["run_id"]}
    counts = json.loads(last["row_counts"])
    assert counts["rejected_rows"] == 6
    assert counts["transactions"] == 4027 and counts["prices"] == 5  # the rows kept
