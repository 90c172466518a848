"""What each participant can still earn: the opportunity columns of offer_results and the table
participant_opportunities, on tests/fixtures/opportunities (values computed by hand)."""

from __future__ import annotations

import csv
import json
from decimal import Decimal as D
from pathlib import Path

import pytest

from tests.harness import engine_params, normalized, run_engine, strip_to_semantics
from tests.oracle.evaluator import evaluate

FIXTURE = Path(__file__).parent / "fixtures" / "opportunities"
PROGRAMS = json.loads((FIXTURE / "programs.json").read_text())
TABLES = {name: list(csv.DictReader(open(FIXTURE / "data" / f"{name}.csv")))
          for name in ("transactions", "products")}

_RUNS: dict[str, dict] = {}


# Spark in-process and through the Thrift server run the same SQL: the new models are checked on
# Spark once (in-process), to keep the suite within its time budget
@pytest.fixture(scope="module", params=engine_params(("duckdb", "postgres", "spark")))
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict:
    engine = request.param
    if engine not in _RUNS:
        _RUNS[engine] = run_engine(PROGRAMS, TABLES, tmp_path_factory.mktemp(f"opportunities-{engine}"),
                                   all_columns=True, target=engine, extra_tables=("participant_opportunities",))
    return _RUNS[engine]


def _offer(results: dict, entity: str, offer: str) -> dict:
    (row,) = [r for r in results["offer_results"] if r["entity_id"] == entity and r["offer_key"] == offer]
    return row


def test_unqualified_percent_offer_potential(results: dict) -> None:
    """$40,000 of matching purchases at 3%, program qualifier not met: 1,200.00 if qualified."""
    row = _offer(results, "short_retailer", "acme.percent.base")
    assert row["qualified"] is False and row["incentive_amount"] == 0
    assert row["potential_if_qualified"] == D("1200.00")
    assert row["blocking_program_qualifications"] == "min_buy"
    assert row["blocking_offer_qualifications"] is None
    assert row["next_tier_incentive_amount"] is None and row["next_tier_uplift"] is None


def test_stepped_next_tier(results: dict) -> None:
    """$78,500 incentivized at the 10% tier (7,850.00), a 15% tier above: 11,775.00, uplift 3,925.00."""
    row = _offer(results, "tier_retailer", "acme.stepped.volume")
    assert row["qualified"] is True and row["incentive_amount"] == D("7850.00")
    assert row["potential_if_qualified"] == D("7850.00")
    assert row["next_tier_incentive_amount"] == D("11775.00")
    assert row["next_tier_uplift"] == D("3925.00")
    assert row["gap_to_next_tier"] == D(500)


@pytest.mark.parametrize(("entity", "blocking"), [("only_a", "b,c"), ("only_b", "a"), ("none_met", "a,b,c")])
def test_blocking_offer_qualifications(results: dict, entity: str, blocking: str) -> None:
    """Offer qualifier `a AND (b OR c)`: the open keys of the closest branches."""
    row = _offer(results, entity, "acme.blocking.offer")
    assert row["offer_qualified"] is False
    assert row["blocking_offer_qualifications"] == blocking
    assert row["blocking_program_qualifications"] is None


def test_only_a_potential(results: dict) -> None:
    """5 units of A at $2 would pay 10.00 once b or c is met."""
    assert _offer(results, "only_a", "acme.blocking.offer")["potential_if_qualified"] == D("10.00")


def test_oracle_agrees(results: dict) -> None:
    expected = evaluate(PROGRAMS, TABLES)["offer_results"]
    actual = strip_to_semantics(results)["offer_results"]
    assert normalized(actual) == normalized(expected)


def test_participant_opportunities(results: dict) -> None:
    rows = {(r["entity_id"], r["offer_key"]): r for r in results["participant_opportunities"]}
    assert set(rows) == {("short_retailer", "acme.percent.base"), ("tier_retailer", "acme.stepped.volume"),
                         ("only_a", "acme.blocking.offer")}
    short = rows[("short_retailer", "acme.percent.base")]
    assert short["amount_at_stake"] == D("1200.00")
    assert short["gap_source"] == "qualification" and short["gap_key"] == "min_buy"
    assert short["gap"] == D(60000)
    tier = rows[("tier_retailer", "acme.stepped.volume")]
    assert tier["amount_at_stake"] == D("3925.00")
    assert tier["gap_source"] == "next_tier" and tier["gap"] == D(500)
    assert tier["gap_key"] == "15_percent_greater_than_or_equal_to_2000"
    only_a = rows[("only_a", "acme.blocking.offer")]
    assert only_a["amount_at_stake"] == D("10.00") and only_a["gap"] == D(1)
    assert only_a["gap_key"] == "b"  # b and c are both 1 short: the first key
