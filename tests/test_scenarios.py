"""What-if scenarios end to end (docs/scenarios.md), on the programs of the API reference's worked
examples (tests/test_worked_examples.py) with a few more participants, values computed by hand;
and `incentives what-if` giving what a run with the same scenario gives."""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from compiler.errors import DataError
from compiler.whatif import what_if
from tests.harness import DUCKDB_AND_POSTGRES, engine_params, normalized, run_engine
from tests.oracle.evaluator import evaluate, evaluate_scenarios
from tests.test_worked_examples import BUY, PROGRAMS, SELL, TABLES, _txn

BASE = "corteva.2026.retailer.national.crop_protection.base"
STEPPED = "offer_a"
PLAN = "offer_plan"
ILEVO = "basf.2026.retailer.local.seed_treatment_soybean_pair_up.ilevo"
BULK, ONE_GAL = "agri_shield_insecticide_bulk_63374", "field_hammer_fungicide_1_gal_61492"
CP, HERBICIDE = "agri_shield_insecticide_2.5_gal_53551", "crop_guard_30_l_herbicide_2.5_gal_22654"
SEED, TREATMENT = "xitavo_soybean_seed", "field_hammer_fungicide_bulk_52112"

ACTUAL = {**TABLES, "transactions": [
    *TABLES["transactions"],
    # at the 10% tier of offer_a: 1,570 x the program price 50 = $78,500 incentivized, threshold
    # purchases of $1,500 ($500 short of the 15% tier at $2,000)
    _txn("TEN1", "ten_retailer", BULK, "1570", "80000"),
    _txn("TEN2", "ten_retailer", ONE_GAL, "15", "1500"),
    # the program's aggregated_amount qualification unmet ($60,000 of $100,000), its yoy growth met
    _txn("CP1", "short_cp", CP, "600", "60000"),
    _txn("CP2", "short_cp", HERBICIDE, "100", "120000"),
    _txn("CP3", "short_cp", HERBICIDE, "100", "100000", date="2025-03-01"),
    # 500 seed acres against 1,084.7457627119 treatment acres (two rows of 5 gal): 500 overlap
    _txn("ST1", "stack_retailer", SEED, "500", "22500", ttype=SELL, uom="unit"),
    _txn("ST2", "stack_retailer", TREATMENT, "5", "2350", ttype=SELL),
    _txn("ST3", "stack_retailer", TREATMENT, "5", "2350", ttype=SELL),
]}

SCENARIOS = [
    {"scenario_id": "reach_15", "entity_id": "ten_retailer", "transaction_id": "H1", "transaction_type": BUY,
     "transaction_date": "2026-05-01", "sku_key": ONE_GAL, "quantity": "5", "uom_key": "gal", "amount": "500"},
    {"scenario_id": "meet_minimum", "entity_id": "short_cp", "transaction_id": "H2", "transaction_type": BUY,
     "transaction_date": "2026-05-01", "sku_key": CP, "quantity": "400", "uom_key": "gal", "amount": "40000"},
    {"scenario_id": "more_seed", "entity_id": "stack_retailer", "transaction_id": "H3", "transaction_type": SELL,
     "transaction_date": "2026-05-01", "sku_key": SEED, "quantity": "300", "uom_key": "unit", "amount": "13500"},
]
SCENARIO_PROPERTIES = [
    {"scenario_id": "plan_100", "level": "request", "entity_id": "plan_retailer", "key": "business_plan_achieved",
     "value": "100"},
]
WITH_SCENARIOS = {**ACTUAL, "scenarios": SCENARIOS, "scenario_properties": SCENARIO_PROPERTIES}
TABLES_OUT = ("scenario_results", "scenario_earnings")
_RUNS: dict[str, dict] = {}


def _run(engine: str, tmp_path_factory: pytest.TempPathFactory) -> dict:
    """The run with the scenarios on `engine`, once per module (its tables, and its workdir)."""
    if engine not in _RUNS:
        workdir = tmp_path_factory.mktemp(f"scenarios-{engine}")
        _RUNS[engine] = run_engine(PROGRAMS, WITH_SCENARIOS, workdir, target=engine, extra_tables=TABLES_OUT)
        _RUNS[engine]["workdir"] = workdir
    return _RUNS[engine]


@pytest.fixture(scope="module", params=engine_params(DUCKDB_AND_POSTGRES))
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    return _run(request.param, tmp_path_factory)


def _changes(results: dict, scenario: str) -> dict[str, dict]:
    return {r["offer_key"]: r for r in results["scenario_results"] if r["scenario_id"] == scenario}


def test_reaching_the_next_tier_pays_the_uplift(results: dict) -> None:
    """$500 more of threshold purchases lift offer_a from 10% to 15% on all $78,500: 7,850.00 ->
    11,775.00, the 3,925.00 uplift offer_results reports as next_tier_uplift."""
    (change,) = _changes(results, "reach_15").values()
    assert change["offer_key"] == STEPPED
    assert (change["baseline_incentive_amount"], change["scenario_incentive_amount"], change["delta"]) == \
        (D("7850.00"), D("11775.00"), D("3925.00"))
    assert change["baseline_current_tier_key"] == "10_percent_greater_than_or_equal_to_1000"
    assert change["scenario_current_tier_key"] == "15_percent_greater_than_or_equal_to_2000"
    (baseline,) = [r for r in results["offer_results"] if r["entity_id"] == "ten_retailer" and r["offer_key"] == STEPPED]
    assert baseline["next_tier_uplift"] == change["delta"]
    rows = [r for r in results["scenario_earnings"] if r["scenario_id"] == "reach_15"]
    assert [(r["transaction_id"], r["incentive_amount"], r["hypothetical"]) for r in rows] == [("TEN1", D("11775.00"), False)]


def test_meeting_a_qualification_pays_the_potential_and_the_new_rows(results: dict) -> None:
    """$40,000 more of the qualifying SKU meets minimum_cp_purchases ($100,000): the offer pays its
    potential_if_qualified (3% of $60,000 = 1,800.00) plus 3% of the scenario's $40,000 (1,200.00)."""
    (change,) = _changes(results, "meet_minimum").values()
    assert change["offer_key"] == BASE
    assert change["baseline_qualified"] is False and change["scenario_qualified"] is True
    assert (change["baseline_incentive_amount"], change["scenario_incentive_amount"]) == (D("0.00"), D("3000.00"))
    assert change["qualifications_newly_met"] == "minimum_cp_purchases"
    assert change["qualifications_newly_lost"] is None
    (baseline,) = [r for r in results["offer_results"] if r["entity_id"] == "short_cp" and r["offer_key"] == BASE]
    assert baseline["potential_if_qualified"] == D("1800.00")
    rows = {r["transaction_id"]: r for r in results["scenario_earnings"] if r["scenario_id"] == "meet_minimum"}
    assert (rows["CP1"]["incentive_amount"], rows["CP1"]["hypothetical"]) == (D("1800.00"), False)
    assert (rows["H2"]["incentive_amount"], rows["H2"]["hypothetical"]) == (D("1200.00"), True)


def test_more_seed_acres_raise_the_overlap_and_every_treatment_row(results: dict) -> None:
    """300 more seed acres: the overlap goes from 500 to 800 of 1,084.75 treatment acres; each of the
    two treatment rows (half the coverage) pays $0.75 x 800 / 2 = 300.00 instead of 187.50."""
    (change,) = _changes(results, "more_seed").values()
    assert change["offer_key"] == ILEVO
    assert (change["baseline_incentive_amount"], change["scenario_incentive_amount"], change["delta"]) == \
        (D("375.00"), D("600.00"), D("225.00"))
    rows = {r["transaction_id"]: r["incentive_amount"] for r in results["scenario_earnings"]
            if r["scenario_id"] == "more_seed" and r["sku_key"] == TREATMENT}
    assert rows == {"ST2": D("300.00"), "ST3": D("300.00")}


def test_a_property_value_changes_the_tier(results: dict) -> None:
    """business_plan_achieved 90 -> 100 within the scenario: offer_plan's tier goes from 1.9% to 2%
    on the $1,000 of P1 (19.00 -> 20.00)."""
    (change,) = _changes(results, "plan_100").values()
    assert change["offer_key"] == PLAN
    assert change["baseline_current_tier_key"] == "1.9_percent_greater_than_or_equal_to_85"
    assert change["scenario_current_tier_key"] == "2_percent_greater_than_or_equal_to_100"
    assert (change["baseline_incentive_amount"], change["scenario_incentive_amount"]) == (D("19.00"), D("20.00"))


def test_baseline_tables_do_not_change(results: dict) -> None:
    """The baseline tables with scenarios are the oracle's run without them, row for row."""
    expected = evaluate(PROGRAMS, ACTUAL)
    for name in ("qualification_results", "potential_earnings", "offer_results"):
        assert normalized(results[name]) == normalized(expected[name]), name


def test_the_oracle_agrees(results: dict) -> None:
    expected = evaluate_scenarios(PROGRAMS, WITH_SCENARIOS)
    for name in TABLES_OUT:
        actual = [{k: v for k, v in r.items() if k != "run_id"} for r in results[name]]
        assert normalized(actual) == normalized(expected[name]), name


def test_what_if_gives_what_a_run_with_the_scenario_gives(tmp_path: Path) -> None:
    """`incentives what-if` on the results of a run without scenarios gives, for each scenario's
    participant, the rows of scenario_results that a run with that scenario gives."""
    run_engine(PROGRAMS, ACTUAL, tmp_path / "actual")
    database = tmp_path / "actual" / "results.duckdb"
    expected = evaluate_scenarios(PROGRAMS, WITH_SCENARIOS)["scenario_results"]
    for scenario in SCENARIOS:
        outcome = what_if(database, scenario["entity_id"],
                          [f"{scenario['sku_key']}={scenario['quantity']}@{scenario['amount']}:{scenario['transaction_date']}"],
                          [], scenario["transaction_type"])
        mine = [{k: v for k, v in r.items() if k not in ("run_id", "scenario_id")} for r in outcome.changes]
        theirs = [{k: v for k, v in r.items() if k != "scenario_id"} for r in expected
                  if r["scenario_id"] == scenario["scenario_id"]]
        assert normalized(mine) == normalized(theirs), scenario["scenario_id"]
    outcome = what_if(database, "plan_retailer", [], ["request:business_plan_achieved=100"])
    assert [(r["offer_key"], r["delta"]) for r in outcome.changes] == [(PLAN, D("1.00"))]
    text = outcome.render()
    assert "19.00 -> 20.00 (+1.00)" in text and "tier: 1.9_percent_greater_than_or_equal_to_85 -> 2_percent" in text
    # without an amount, the engine values a purchase at the program price: 10 gal x $50 = $500 of
    # offer_a's earning SKU at its 10% tier; a SKU a program reads but no price covers is refused
    outcome = what_if(database, "ten_retailer", [f"{BULK}=10:2026-05-01"], [])
    assert [(r["offer_key"], r["delta"]) for r in outcome.changes] == [(STEPPED, D("50.00"))]
    assert f"buys 10 of {BULK} for 500.00 on 2026-05-01" in outcome.render()
    with pytest.raises(DataError) as refused:
        what_if(database, "ten_retailer", [f"{ONE_GAL}=5:2026-05-01"], [])
    assert f"--buy {ONE_GAL}=5:2026-05-01: no amount and no program price" in str(refused.value)


def test_what_if_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    """Every problem of the arguments at once, each with the argument, the value and what was expected."""
    with pytest.raises(DataError) as refused:
        what_if(tmp_path / "none.duckdb", "e1", ["x=abc", "y", "z=1:2026-13-01"], ["=1"])
    text = str(refused.value)
    assert "4 problems" in text, text
    assert "--buy x=abc: quantity is not a number; got 'abc'" in text
    assert "--buy y: not a purchase" in text and "expected SKU=QTY[@AMOUNT][:DATE]" in text
    assert "--buy z=1:2026-13-01: not a date; got '2026-13-01'" in text
    assert "--property =1: not a property value" in text


@pytest.mark.parametrize("engine", engine_params(("duckdb",)))
def test_the_report_shows_the_scenarios(engine: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """The HTML report has a scenarios section when scenario_results has rows: one row per change."""
    from compiler.report import report

    workdir = _run(engine, tmp_path_factory)["workdir"]
    page = report(workdir / "results.duckdb", workdir / "report.html").read_text()
    assert 'id="scenarios"' in page
    assert 'data-scenarios="scenarios">4<' in page and 'data-scenarios="offers_changed">4<' in page
    assert f'data-scenario="reach_15|ten_retailer|{STEPPED}"' in page
    assert "3,925.00" in page
