"""Bad program JSON and bad input data: a non-zero exit, a message naming where the problem is and
the bad value, no traceback, and the earlier results unchanged."""

from __future__ import annotations

import copy
import hashlib
import json
import shutil
from pathlib import Path
from typing import Any, Callable

import duckdb
import pytest

from compiler.cli import main

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples"
PROGRAMS = json.loads((EXAMPLE / "programs.json").read_text())

Mutation = Callable[[list[dict[str, Any]]], None]


def _at(path: list[Any], value: Any) -> Mutation:
    def mutate(programs: list[dict[str, Any]]) -> None:
        node: Any = programs
        for step in path[:-1]:
            node = node[step]
        node[path[-1]] = value
    return mutate


def _drop(path: list[Any]) -> Mutation:
    def mutate(programs: list[dict[str, Any]]) -> None:
        node: Any = programs
        for step in path[:-1]:
            node = node[step]
        del node[path[-1]]
    return mutate


def _append_copy(path: list[Any], index: int) -> Mutation:
    """Append a copy of list element `index` at `path` (a duplicate key)."""
    def mutate(programs: list[dict[str, Any]]) -> None:
        node: Any = programs
        for step in path:
            node = node[step]
        node.append(copy.deepcopy(node[index]))
    return mutate


STACKED = [3, "offers", 0, "incentive"]
STEPPED_AMOUNT = [1, "offers", 2, "incentive"]

# (id, mutation, words the message must contain: the location and the bad value)
BAD_PROGRAMS: list[tuple[str, Mutation, list[str]]] = [
    ("unknown qualification type", _at([1, "qualifications", 0, "type"], "aggregated_amout"),
     ["programs[1].qualifications[0].type", "aggregated_amout"]),
    ("unknown operator", _at([1, "qualifications", 0, "operator"], "at_least"),
     ["programs[1].qualifications[0].operator", "at_least"]),
    ("unknown strategy", _at([1, "offers", 0, "strategy_key"], "tiered"), ["offers[0].strategy_key", "tiered"]),
    ("unknown calculator", _at([1, "offers", 0, "calculator_key"], "percent"), ["offers[0].calculator_key", "'percent'"]),
    ("invalid strategy and calculator", _at([1, "offers", 0, "calculator_key"], "dollars_per_coverage_unit"),
     ["offers[0].calculator_key", "dollars_per_coverage_unit"]),
    ("unknown property level", _at([1, "qualifications", 2, "property", "level"], "global"),
     ["qualifications[2].property.level", "global"]),
    ("period ends before it starts", _at([1, "time_periods", 0, "end_date"], "2024-01-01"),
     ["programs[1].time_periods[0].end_date", "2024-01-01"]),
    ("bad date", _at([1, "time_periods", 0, "start_date"], "2025-02-30"), ["time_periods[0].start_date", "2025-02-30"]),
    ("unknown period key", _at([1, "qualifications", 0, "filters", 0, "period_key"], "someday"),
     ["qualifications[0].filters[0].period_key", "someday"]),
    ("qualifier syntax error", _at([1, "qualifier"], "min_purchases AND (yoy_growth OR"),
     ["programs[1].qualifier", "position 33"]),
    ("qualifier unknown key", _at([1, "qualifier"], "min_purchases AND nothing_here"),
     ["programs[1].qualifier", "nothing_here", "position 19"]),
    ("qualifier with NOT", _at([1, "qualifier"], "NOT min_purchases"), ["programs[1].qualifier", "NOT"]),
    ("duplicate program key", _at([2, "key"], PROGRAMS["programs"][1]["key"]),
     ["programs[2].key", "duplicate program key"]),
    ("duplicate offer key", _at([1, "offers", 1, "key"], PROGRAMS["programs"][1]["offers"][0]["key"]),
     ["offers[1].key", "duplicate offer key"]),
    ("duplicate qualification key", _append_copy([1, "qualifications"], 0),
     ["qualifications[3].key", "duplicate qualification key", "min_purchases"]),
    ("duplicate tier threshold", _append_copy([*STEPPED_AMOUNT, "rates"], 0), ["incentive.rates[", "duplicate tier"]),
    ("duplicate SKU set key", _append_copy([*STACKED, "sku_sets"], 0), ["incentive.sku_sets[", "duplicate SKU set key"]),
    ("duplicate stack key", _append_copy([*STACKED, "stacks"], 0), ["incentive.stacks[1].key", "duplicate stack key"]),
    ("non-numeric value", _at([1, "qualifications", 0, "value"], "lots"), ["qualifications[0].value", "lots"]),
    ("non-numeric rate", _at([1, "offers", 0, "incentives", 0, "rates", 0, "rate"], "3%"),
     ["incentives[0].rates[0].rate", "3%"]),
    ("too many decimals", _at([1, "qualifications", 0, "value"], "1.00000000001"), ["qualifications[0].value", "10 decimal"]),
    ("zero conversion rate", _at([*STACKED, "sku_sets", 1, "conversion", "rates", 0, "rate"], 0),
     ["conversion.rates[0].rate", "positive"]),
    ("negative conversion rate", _at([*STACKED, "sku_sets", 1, "conversion", "rates", 0, "rate"], -0.5),
     ["conversion.rates[0].rate", "-0.5"]),
    ("boolean property with greater_than", _at([0, "offers", 0, "qualifications", 0, "operator"], "greater_than"),
     ["offers[0].qualifications[0].operator", "greater_than", "equal_to"]),
    ("stack names undefined set", _at([*STACKED, "stacks", 0, "sku_set_keys", 1], "ghost_set"),
     ["incentive.stacks[0].sku_set_keys", "ghost_set"]),
    ("tier value and rate differ", _at([2, "offers", 0, "incentive", "rates", 0, "rate"], 99),
     ["offers[0].incentive.rates[0]", "value=", "rate=99"]),
    ("transaction-level property qualification", _at([1, "qualifications", 2, "property", "level"], "transaction"),
     ["qualifications[2].property.level", "transaction"]),
    ("divisor zero", _at([0, "qualifications", 0, "denominator", "divisor"], 0), ["denominator.divisor", "positive"]),
    ("missing offer key", _drop([1, "offers", 0, "key"]), ["programs[1].offers[0].key", "missing field"]),
    ("missing incentives", _drop([1, "offers", 0, "incentives"]), ["programs[1].offers[0].incentives", "missing"]),
    ("unknown transaction type", _at([1, "qualifications", 0, "filters", 0, "transaction_type"], "barter"),
     ["filters[0].transaction_type", "barter"]),
]


def _csv_append(name: str, line: str) -> Callable[[Path], None]:
    def mutate(data: Path) -> None:
        with open(data / f"{name}.csv", "a") as fh:
            fh.write(line + "\n")
    return mutate


def _csv_replace(name: str, old: str, new: str) -> Callable[[Path], None]:
    def mutate(data: Path) -> None:
        path = data / f"{name}.csv"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new, 1))
    return mutate


def _remove(name: str) -> Callable[[Path], None]:
    return lambda data: (data / f"{name}.csv").unlink()


TXN = "T900001,retailer_001,retailer_purchases_from_distribution,2026-01-05,prairie_pass_herbicide_2.5_gal_28816,{q},gal,{a}"

# (id, mutation of a copy of examples/data, words the message must contain)
BAD_DATA: list[tuple[str, Callable[[Path], None], list[str]]] = [
    ("non-numeric quantity", _csv_append("transactions", TXN.format(q="ten", a="10")),
     ["transactions.csv row 4028", "column quantity", "ten"]),
    ("non-numeric amount", _csv_append("transactions", TXN.format(q="10", a="$10")),
     ["transactions.csv row 4028", "column amount", "$10"]),
    ("invalid date", _csv_append("transactions", TXN.format(q="1", a="1").replace("2026-01-05", "2026-02-31")),
     ["column transaction_date", "2026-02-31"]),
    ("duplicate transaction_id", _csv_append("transactions", TXN.format(q="1", a="1").replace("T900001", "T000001")),
     ["column transaction_id", "T000001", "duplicate"]),
    ("empty entity_id", _csv_append("transactions", TXN.format(q="1", a="1").replace("retailer_001", "")),
     ["transactions.csv row 4028", "column entity_id", "empty"]),
    ("empty transaction_id", _csv_append("transactions", TXN.format(q="1", a="1").replace("T900001", "")),
     ["column transaction_id", "empty"]),
    ("unknown transaction type", _csv_append("transactions", TXN.format(q="1", a="1").replace(
        "retailer_purchases_from_distribution", "barter")), ["column transaction_type", "barter"]),
    ("missing required column", _csv_replace("transactions", "sku_key,", "sku,"),
     ["transactions.csv", "missing required column", "sku_key"]),
    ("missing transactions file", _remove("transactions"), ["transactions.csv", "required input file is missing"]),
    ("missing products file", _remove("products"), ["products.csv", "required input file is missing"]),
    ("ragged csv row", _csv_append("transactions", "T900002,retailer_001"), ["transactions.csv", "cannot be read"]),
    ("non-numeric price", _csv_append("prices", "agri_shield_insecticide_2.5_gal_53551,fifty,2025-09-01,"),
     ["prices.csv row", "column price", "fifty"]),
    ("price period reversed", _csv_append("prices", "agri_shield_insecticide_2.5_gal_53551,50,2026-09-01,2025-09-01"),
     ["prices.csv row", "column end_date", "2026-09-01 .. 2025-09-01"]),
    ("unknown property level", _csv_append("properties", "global,retailer_001,,x,1"),
     ["properties.csv row", "column level", "global"]),
    ("entity property without entity", _csv_append("properties", "entity,,,is_sustainability_certified,true"),
     ["properties.csv row", "column entity_id"]),
    ("waiver without program", _csv_append("waivers", ",min_purchases,,retailer_001"),
     ["waivers.csv row 3", "column program_key"]),
    ("sku with two brands", _csv_append("products", "agri_shield_insecticide_bulk_63374,some_other_brand"),
     ["products.csv row", "column sku_key", "agri_shield_insecticide_bulk_63374"]),
]


def _digest(database: Path) -> str:
    con = duckdb.connect(str(database), read_only=True)
    try:
        h = hashlib.sha256()
        for table in ("qualification_results", "potential_earnings", "offer_results", "runs"):
            for row in con.execute(f"select * from main.{table} order by all").fetchall():
                h.update(repr(row).encode())
        return h.hexdigest()
    finally:
        con.close()


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    database = tmp_path_factory.mktemp("bad") / "results.duckdb"
    assert main(["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(EXAMPLE / "data"),
                 "--database", str(database)]) == 0
    return database


def _expect_refusal(capsys: pytest.CaptureFixture[str], built: Path, args: list[str], needles: list[str]) -> None:
    before = _digest(built)
    capsys.readouterr()
    assert main(args) == 1
    err = capsys.readouterr().err
    assert err.startswith("error: ") and "Traceback" not in err
    for needle in needles:
        assert needle in err, f"{needle!r} not in:\n{err}"
    assert _digest(built) == before
    assert sorted(p.name for p in built.parent.iterdir()) == ["results.duckdb"]


@pytest.mark.parametrize("mutate,needles", [b[1:] for b in BAD_PROGRAMS], ids=[b[0] for b in BAD_PROGRAMS])
def test_bad_program(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path, mutate: Mutation,
                     needles: list[str]) -> None:
    data = copy.deepcopy(PROGRAMS)
    mutate(data["programs"])
    path = tmp_path / "programs.json"
    path.write_text(json.dumps(data))
    _expect_refusal(capsys, built, ["run", "--programs", str(path), "--data", str(EXAMPLE / "data"),
                                    "--database", str(built)], needles)


@pytest.mark.parametrize("mutate,needles", [b[1:] for b in BAD_DATA], ids=[b[0] for b in BAD_DATA])
def test_bad_data(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path, mutate: Callable[[Path], None],
                  needles: list[str]) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE / "data", data)
    mutate(data)
    _expect_refusal(capsys, built, ["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(data),
                                    "--database", str(built)], needles)


def test_not_json(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path) -> None:
    path = tmp_path / "programs.json"
    path.write_text('{"programs": [\n  {"key": "a",}\n]}')
    _expect_refusal(capsys, built, ["run", "--programs", str(path), "--data", str(EXAMPLE / "data"),
                                    "--database", str(built)], ["line 2 column", "not valid JSON"])


def test_wrong_shape(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path) -> None:
    path = tmp_path / "programs.json"
    path.write_text('{"items": 3}')
    _expect_refusal(capsys, built, ["run", "--programs", str(path), "--data", str(EXAMPLE / "data"),
                                    "--database", str(built)], ["top level", "dict"])


def test_every_problem_at_once(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path) -> None:
    data = tmp_path / "data"
    shutil.copytree(EXAMPLE / "data", data)
    for _, mutate, _ in BAD_DATA[:3]:
        mutate(data)
    _expect_refusal(capsys, built, ["run", "--programs", str(EXAMPLE / "programs.json"), "--data", str(data),
                                    "--database", str(built)], ["ten", "$10", "2026-02-31"])


def test_bad_program_and_bad_data_together(tmp_path: Path, capsys: pytest.CaptureFixture[str], built: Path) -> None:
    # the programs are compiled while the files load: one message lists the problems of both
    data = copy.deepcopy(PROGRAMS)
    BAD_PROGRAMS[0][1](data["programs"])
    path = tmp_path / "programs.json"
    path.write_text(json.dumps(data))
    files = tmp_path / "data"
    shutil.copytree(EXAMPLE / "data", files)
    BAD_DATA[0][1](files)
    _expect_refusal(capsys, built, ["run", "--programs", str(path), "--data", str(files), "--database", str(built)],
                    [*BAD_PROGRAMS[0][2], *BAD_DATA[0][2], "the programs cannot be compiled"])
