"""Compiler: golden rule tables, qualifier parsing, determinism, model count independent of programs."""

from __future__ import annotations

import copy
import json
import os
from decimal import Decimal
from pathlib import Path

import pytest
from typing import Any

from compiler.compile.programs import compile_text
from compiler.compile.write import write_rules
from compiler.errors import ProgramError
from compiler.program import qualifier as qx
from compiler.rule_tables import TABLES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = Path(__file__).resolve().parent / "golden"
UPDATE = os.environ.get("UPDATE_GOLDEN") == "1"


def _cases() -> list[Path]:
    return sorted(p for p in GOLDEN.iterdir() if (p / "programs.json").exists())


@pytest.mark.parametrize("case", _cases(), ids=lambda p: p.name)
def test_golden_rule_tables(case: Path, tmp_path: Path) -> None:
    from compiler.rule_tables import seed_name

    rules, _ = compile_text((case / "programs.json").read_text())
    write_rules(rules, tmp_path)
    expected_dir = case / "expected"  # one file per table, named by the table (the seeds: incentives__<table>)
    for name in TABLES:
        got = (tmp_path / f"{seed_name(name)}.csv").read_text()
        if UPDATE:
            (expected_dir / f"{name}.csv").write_text(got)
        assert got == (expected_dir / f"{name}.csv").read_text(), f"{case.name}/{name}.csv differs (UPDATE_GOLDEN=1 to accept)"


def test_committed_seeds_match_example(tmp_path: Path) -> None:
    """integration_tests/seeds/incentive_rules holds the compiled example (the rule tables as dbt
    seeds incentives__<table>, the catalogue and their properties file), committed as a team
    commits its own; it must be what `incentives compile` writes today. The package's seeds/ is
    not committed (only its README)."""
    import subprocess

    committed = ROOT / "integration_tests" / "seeds" / "incentive_rules"
    rules, _ = compile_text((ROOT / "examples" / "programs.json").read_text())
    write_rules(rules, tmp_path, "examples/programs.json")
    written = sorted(p.name for p in tmp_path.iterdir())
    assert written == sorted(p.name for p in committed.iterdir())
    for name in written:
        assert (tmp_path / name).read_text() == (committed / name).read_text(), name
    tracked = subprocess.run(["git", "ls-files", "seeds"], cwd=ROOT, capture_output=True, text=True)
    if tracked.returncode == 0:  # a git checkout
        assert tracked.stdout.split() == ["seeds/README.md"]


def test_staging_models_read_the_declared_rule_columns() -> None:
    """The rule tables are declared once (compiler/rule_tables.py); each staging model reads
    exactly the declared columns of its seed, in order."""
    import re

    from compiler.rule_tables import RULE_TABLES

    for table in RULE_TABLES:
        sql = (ROOT / "models" / "rules" / f"stg_incentives__rules_{table.name}.sql").read_text()
        assert f"read_rule_table('{table.name}'" in sql, table.name
        assert tuple(re.findall(r"'(\w+)': ", sql)) == table.column_names, table.name


def test_a_failed_compile_leaves_no_rule_table_that_looks_valid(tmp_path: Path) -> None:
    from compiler.cli import main

    programs = tmp_path / "programs.json"
    programs.write_text((ROOT / "examples" / "programs.json").read_text())
    assert main(["compile", str(programs), "--out", str(tmp_path / "seeds")]) == 0
    assert len((tmp_path / "seeds" / "incentives__offers.csv").read_text().splitlines()) > 1
    bad = json.loads(programs.read_text())
    bad["programs"][0]["qualifier"] = "no_such_qualification"
    programs.write_text(json.dumps(bad))
    assert main(["compile", str(programs), "--out", str(tmp_path / "seeds")]) == 1
    for name in TABLES:  # headers only
        assert len((tmp_path / "seeds" / f"incentives__{name}.csv").read_text().splitlines()) == 1, name
    assert ",failed," in (tmp_path / "seeds" / "incentives__catalogue.csv").read_text()


def test_deterministic_whatever_the_order() -> None:
    data = json.loads((ROOT / "examples" / "programs.json").read_text(), parse_float=Decimal)
    a, _ = compile_text(json.dumps(data, default=str))
    b, _ = compile_text(json.dumps(list(reversed(data["programs"])), default=str))
    assert a.tables == b.tables


@pytest.mark.parametrize("text,terms", [
    ("a AND (b OR c)", [("a", "b"), ("a", "c")]),
    ("a and b or c", [("a", "b"), ("c",)]),
    ("(a OR b) AND (a OR c)", [("a",), ("b", "c")]),
    ("x.y-z", [("x.y-z",)]),
    ("  ", []),
    (None, []),
])
def test_qualifier_dnf(text: str | None, terms: list[tuple[str, ...]]) -> None:
    assert qx.to_dnf(qx.parse(text)) == terms


@pytest.mark.parametrize("text,position", [("a AND", 5), ("a (b)", 2), ("(a OR b", 7), ("a OR OR b", 5), ("NOT a", 0)])
def test_qualifier_syntax_errors(text: str, position: int) -> None:
    with pytest.raises(qx.QualifierSyntaxError) as info:
        qx.to_dnf(qx.parse(text))
    assert info.value.position == position


def _catalogue(n: int) -> str:
    base = json.loads((ROOT / "examples" / "programs.json").read_text())["programs"]
    out = []
    for i in range(n):
        program = copy.deepcopy(base[i % len(base)])
        suffix = f".copy{i}"
        program["key"] += suffix
        for offer in program.get("offers", []):
            offer["key"] += suffix
        out.append(program)
    return json.dumps({"programs": out})


def _model_count(rules_dir: Path) -> int:
    from dbt.cli.main import dbtRunner

    result = dbtRunner().invoke([
        "ls", "--resource-type", "model", "--output", "name", "--quiet",
        "--project-dir", str(ROOT), "--profiles-dir", str(ROOT / "profiles"),
    ])
    assert result.success, result.exception
    return len(result.result)


def test_model_count_does_not_grow_with_programs(tmp_path: Path) -> None:
    one, _ = compile_text(_catalogue(1))
    many, _ = compile_text(_catalogue(2000))
    assert many.programs == 2000
    write_rules(one, tmp_path / "one")
    write_rules(many, tmp_path / "many")
    assert _model_count(tmp_path / "one") == _model_count(tmp_path / "many") > 0


def test_rejects_unknown_type_with_location() -> None:
    bad = json.loads((ROOT / "examples" / "programs.json").read_text())
    bad["programs"][0]["qualifications"][0]["type"] = "aggregated_amout"
    with pytest.raises(ProgramError) as info:
        compile_text(json.dumps(bad))
    text = info.value.render()
    assert "programs[0].qualifications[0].type" in text and "aggregated_amout" in text


def _keys(filters: list[dict], periods: list[dict]) -> set[tuple]:
    program = {"key": "p", "time_periods": periods, "offers": [{
        "key": "o", "strategy_key": "stepped", "calculator_key": "percent_of_amount",
        "incentive": {"filters": filters, "threshold_definition": {"type": "aggregated_amount", "filters": filters},
                      "rates": [{"threshold": 0, "value": 1}]}}]}
    rules, _ = compile_text(json.dumps({"programs": [program]}))
    buckets = {b[0]: (b[1], b[2]) for b in rules.tables["time_buckets"]}
    return {(sku, ttype, buckets[bucket]) for _, sku, ttype, bucket in rules.tables["filter_keys"]}


PERIODS = [{"key": "h1", "start_date": "2025-01-01", "end_date": "2025-06-30"},
           {"key": "q2_on", "start_date": "2025-04-01", "end_date": "2025-12-31"}]
BUY, SELL = "retailer_purchases_from_distribution", "retailer_sales_to_growers"


def test_filter_keys_union_of_overlapping_entries_counts_once() -> None:
    keys = _keys([{"period_key": "h1", "sku_keys": ["a"], "transaction_type": BUY},
                  {"period_key": "q2_on", "sku_keys": ["a"], "transaction_type": BUY}], PERIODS)
    # h1 and q2_on overlap in April-June: that bucket appears once
    assert keys == {("a", BUY, ("2025-01-01", "2025-03-31")), ("a", BUY, ("2025-04-01", "2025-06-30")),
                    ("a", BUY, ("2025-07-01", "2025-12-31"))}


def test_filter_keys_any_sku_absorbs_sku_keys_and_absent_type_is_every_type() -> None:
    keys = _keys([{"period_key": "h1", "sku_keys": ["a"]},
                  {"period_key": "h1", "transaction_type": SELL}], PERIODS)
    from compiler.program.models import TRANSACTION_TYPES

    h1 = ("2025-01-01", "2025-06-30")
    assert keys == {(None, SELL, h1)} | {("a", t, h1) for t in TRANSACTION_TYPES if t != SELL}


def test_filter_keys_without_period_cover_all_time() -> None:
    keys = _keys([{"sku_keys": ["a"], "transaction_type": BUY},
                  {"period_key": "h1", "sku_keys": ["b"], "transaction_type": BUY}], PERIODS)
    assert {b for sku, _, b in keys if sku == "a"} == {
        ("0001-01-01", "2024-12-31"), ("2025-01-01", "2025-06-30"), ("2025-07-01", "9999-12-31")}
    assert {b for sku, _, b in keys if sku == "b"} == {("2025-01-01", "2025-06-30")}


def _stacked_program(treatment_rates: list[dict], pay_rate: Any = 1.25) -> dict:
    return {"programs": [{"key": "p", "time_periods": [{"key": "s", "start_date": "2026-01-01", "end_date": "2026-12-31"}],
                          "offers": [{"key": "p.stack", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
                                      "incentive": {"sku_sets": [
                                          {"key": "seed", "conversion": {"rates": [{"sku_key": "seed", "rate": 1, "from": "unit"}]},
                                           "rates": [{"sku_key": "seed", "rate": 0}]},
                                          {"key": "treatment", "conversion": {"rates": treatment_rates},
                                           "rates": [{"sku_key": r["sku_key"], "rate": pay_rate} for r in treatment_rates]}],
                                          "stacks": [{"sku_set_keys": ["seed", "treatment"]}]}}]}]}


def test_stacked_coverage_scales_are_exact_integers() -> None:
    """Each set's common conversion rate is an integer multiple of each of its rates, and every
    set's rate x multiplier is the offer's one common denominator: 0.00921875 = 59/6400 beside
    0.0125 = 1/80 -> the set's rate 59/80 = 0.7375 (weights 80 and 59); seed 1 -> multiplier 59."""
    rules, _ = compile_text(json.dumps(_stacked_program([
        {"sku_key": "ilevo", "rate": 0.00921875, "from": "gal"}, {"sku_key": "other", "rate": 0.0125, "from": "gal"}])))
    rows = {r[3]: r for r in rules.tables["stacked_set_skus"]}
    # (..., coverage_weight, set_conversion_rate, offer_coverage_multiplier)
    assert rows["ilevo"][-3:] == ("80", "0.7375", "80")
    assert rows["other"][-3:] == ("59", "0.7375", "80")
    assert rows["seed"][-3:] == ("1", "1", "59")


@pytest.mark.parametrize("rates, pay_rate, path, words", [
    ([{"sku_key": "t", "rate": "0.5", "from": "gal"}], 10 ** 10, "sku_sets[1].rates[0].rate", "rate too large"),
    ([{"sku_key": "t", "rate": "0.00000001", "from": "gal"}], 10 ** 9, "sku_sets[1].rates[0].rate", "rate too large"),
])
def test_stacked_offer_beyond_exact_bounds_is_refused_with_location(rates: list, pay_rate: Any, path: str,
                                                                    words: str) -> None:
    with pytest.raises(ProgramError) as info:
        compile_text(json.dumps(_stacked_program(rates, pay_rate)))
    text = info.value.render()
    assert f"programs[0].offers[0].incentive.{path}" in text and words in text and "'p'" in text, text
    # a 10-place rate alone is within the bounds
    compile_text(json.dumps(_stacked_program([{"sku_key": "t", "rate": "0.1234567891", "from": "gal"}])))


def test_stacked_rates_without_a_common_denominator_are_refused_with_location() -> None:
    """Rates of one set with unrelated numerators (0.436203 and 0.460906 gal per acre: a common
    rate of about 2 x 10^5) are beyond the bounds of exact coverage: the offer is refused at the
    set's conversion rates, with the rates, the common rate and what would be within the bounds
    (never computed with a rounded coverage)."""
    with pytest.raises(ProgramError) as info:
        compile_text(json.dumps(_stacked_program([
            {"sku_key": "a", "rate": "0.436203", "from": "gal"}, {"sku_key": "b", "rate": "0.460906", "from": "gal"}])))
    text = info.value.render()
    assert "programs[0].offers[0].incentive.sku_sets[1].conversion.rates" in text, text
    assert "0.436203, 0.460906" in text and "common conversion rate 201048.579918" in text, text
    assert "rates sharing factors" in text, text
    # sets of one 10-place rate each whose numerators share nothing: no common denominator within 10^18
    program = _stacked_program([{"sku_key": "t", "rate": "0.1234567891", "from": "gal"}])
    program["programs"][0]["offers"][0]["incentive"]["sku_sets"][0]["conversion"]["rates"][0]["rate"] = "9876.5432109871"
    with pytest.raises(ProgramError) as info:
        compile_text(json.dumps(program))
    assert "coverage weight x offer multiplier" in info.value.render(), info.value.render()
