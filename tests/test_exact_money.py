"""Exact money, end to end on every engine: half-cent ties found on randomized programs, each
rebuilt as a case whose exact incentive is known by hand (docs/semantics.md, "divide last").

Stacked: a stack of an anchor set (300 acres) and a paying set of two transactions covering 900
acres, so the contribution is 1/3. The first transaction covers c1 acres at $1.25 an acre:
  c1 = 772.5 -> 772.5 x 1.25 x 300 / 900 = 321.875 -> 321.88 (a contribution rounded to 10 places
  first paid 321.87), 49.5 -> 20.625 -> 20.63, 15.9 -> 6.625 -> 6.63, 3.18 -> 1.325 -> 1.33.
The second transaction covers 900 - c1 acres and pays (900 - c1) x 1.25 / 3 exactly rounded.
"""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from tests.harness import engine_params, run_engine
from tests.oracle.evaluator import evaluate

BUY = "retailer_purchases_from_distribution"
# c1 acres of the first transaction -> its incentive, paid to the cent half away from zero
TIES = {D("772.5"): D("321.88"), D("49.5"): D("20.63"), D("15.9"): D("6.63"), D("3.18"): D("1.33")}
CONVERSION = D("0.125")  # gal per acre: q gal cover 8q acres


def _programs() -> dict:
    return {"programs": [{
        "key": "ties",
        "time_periods": [{"key": "season", "start_date": "2025-09-01", "end_date": "2026-08-31"}],
        "offers": [
            {"key": "ties.stack", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": {
                 "sku_sets": [
                     {"key": "anchor", "period_key": "season",
                      "conversion": {"coverage_unit": "acre", "rates": [{"sku_key": "anchor", "rate": 1, "from": "gal"}]},
                      "rates": [{"sku_key": "anchor", "rate": 0}]},
                     {"key": "paying", "period_key": "season",
                      "conversion": {"coverage_unit": "acre", "rates": [
                          {"sku_key": "inoculant", "rate": str(CONVERSION), "from": "gal"}]},
                      "rates": [{"sku_key": "inoculant", "rate": 1.25}]}],
                 "stacks": [{"key": "anchor_and_paying", "sku_set_keys": ["anchor", "paying"]}]}},
            # $100 shared over three equal purchases: 33.333... each, rounded row by row
            {"key": "ties.thirds", "strategy_key": "standard", "calculator_key": "fixed_amount",
             "incentives": [{"key": "thirds", "rates": [{"sku_key": "bag", "rate": 100}]}]},
            # $0.05 over two equal purchases: 0.025 each, a tie
            {"key": "ties.halves", "strategy_key": "standard", "calculator_key": "fixed_amount",
             "incentives": [{"key": "halves", "rates": [{"sku_key": "jug", "rate": 0.05}]}]},
        ],
    }]}


def _tables() -> dict:
    rows = []

    def buy(entity: str, tid: str, sku: str, quantity: D, amount: D = D(100)) -> None:
        rows.append({"transaction_id": tid, "entity_id": entity, "transaction_type": BUY,
                     "transaction_date": "2026-03-01", "sku_key": sku, "quantity": quantity, "uom_key": "gal",
                     "amount": amount})

    for i, c1 in enumerate(TIES):
        entity = f"r{i}"
        buy(entity, f"{entity}-anchor", "anchor", D(300))
        buy(entity, f"{entity}-t1", "inoculant", c1 * CONVERSION)
        buy(entity, f"{entity}-t2", "inoculant", (D(900) - c1) * CONVERSION)
    for k in range(3):
        buy("r0", f"bag{k}", "bag", D(1), D(7))
    for k in range(2):
        buy("r0", f"jug{k}", "jug", D(1), D(10))
    return {"transactions": rows, "products": []}


def _round_half_away(x: D) -> D:
    return x.quantize(D("0.01"), rounding="ROUND_HALF_UP")


@pytest.mark.parametrize("engine", engine_params())
def test_half_cent_ties_pay_the_cent_away_from_zero(tmp_path: Path, engine: str) -> None:
    results = run_engine(_programs(), _tables(), tmp_path, target=engine)
    paid = {r["transaction_id"]: r["incentive_amount"] for r in results["potential_earnings"]}
    for i, (c1, cents) in enumerate(TIES.items()):
        assert paid[f"r{i}-t1"] == cents, f"c1 = {c1} acres: paid {paid[f'r{i}-t1']}, expected {cents}"
        # the second transaction: (900 - c1) x 1.25 / 3, rounded once
        assert paid[f"r{i}-t2"] == _round_half_away((D(900) - c1) * D("1.25") / 3)
    assert [paid[f"bag{k}"] for k in range(3)] == [D("33.33")] * 3
    assert [paid[f"jug{k}"] for k in range(2)] == [D("0.03")] * 2
    totals = {(r["entity_id"], r["offer_key"]): r["incentive_amount"] for r in results["offer_results"]}
    assert totals[("r0", "ties.stack")] == D("321.88") + D("53.13")  # 127.5 x 1.25 / 3 = 53.125
    # the stacked rows report what they earn on: q x 1/3 and value x 1/3, each one exact quotient
    row = next(r for r in results["potential_earnings"] if r["transaction_id"] == "r3-t1")
    assert row["incentivized_quantity"] == D("0.1325000000")  # 0.3975 / 3
    assert row["incentivized_amount"] == D("33.3333333333")
    assert row["incentive_contribution_percent"] == D("0.3333333333")
    # and the exact evaluator agrees on every row
    expected = evaluate(_programs(), _tables())
    assert sorted(paid.items()) == sorted((r["transaction_id"], r["incentive_amount"])
                                          for r in expected["potential_earnings"])
