"""Exact money, end to end on every engine's SQL (tests/harness.SQL_ENGINES): half-cent ties found on
randomized programs, each rebuilt as a case whose exact incentive is known by hand
(docs/semantics.md, "divide last").

Stacked: a stack of an anchor set (300 acres) and a paying set of two transactions covering 900
acres, so the contribution is 1/3. The first transaction covers c1 acres at $1.25 an acre:
  c1 = 772.5 -> 772.5 x 1.25 x 300 / 900 = 321.875 -> 321.88 (a contribution rounded to 10 places
  first paid 321.87), 49.5 -> 20.625 -> 20.63, 15.9 -> 6.625 -> 6.63, 3.18 -> 1.325 -> 1.33.
The second transaction covers 900 - c1 acres and pays (900 - c1) x 1.25 / 3 exactly rounded.

Stacked where the conversion rate cancels (the reference's ILEVO rate, 0.00921875 gal per acre =
59/6400): seed 14 units at 1 unit per acre, treatment 5 gal and 15 gal at $1.25 per acre. The
overlap is the seed's 14 acres; each treatment row pays 1.25 x 14 x its share of the treatment
(5/20, 15/20): 4.375 -> 4.38 and 13.125 -> 13.13, total 17.51 (a coverage rounded to 10 places
first paid 4.37). Its contribution is 14 x 0.00921875 / 20 = 0.006453125.

The bounds of exact coverage (docs/semantics.md, "Stacked coverage"): the largest participant
they allow (10^5 treatment transactions of 99.9999 gal, 10^3 of 9,999.99 on Spark, seed just
under 10^7 units, a value just under 10^9) builds exactly; one more gallon past 10^7 fails naming the offer, set and participant.

Measures keep 10 decimals (program `measures`, found by the differential test): 1.5 gal at a $1.0001
program price is 1.50015, which meets `equal_to 1.50015`; a property of 84.99999 is `less_than 85`.

The ties and the measures are one run per engine (one build each: a build on Spark costs a minute or
more of the suite), the bounds two runs each.
"""

from __future__ import annotations

from decimal import Decimal as D
from pathlib import Path

import pytest

from tests.harness import DUCKDB_AND_POSTGRES, SQL_ENGINES, engine_params, normalized, run_engine
from tests.oracle.evaluator import evaluate

BUY = "retailer_purchases_from_distribution"
SELL = "retailer_sales_to_growers"
# c1 acres of the first transaction -> its incentive, paid to the cent half away from zero
TIES = {D("772.5"): D("321.88"), D("49.5"): D("20.63"), D("15.9"): D("6.63"), D("3.18"): D("1.33")}
CONVERSION = D("0.125")  # gal per acre: q gal cover 8q acres


def _programs() -> dict:
    return {"programs": [_ties_program(), _measures_program()]}


def _ties_program() -> dict:
    return {
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
            {"key": "ties.ilevo", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": _ilevo_incentive()},
            # two rates in one set: common conversion rate 59/80 = 0.7375, coverage weights 80 and 59
            # (docs/semantics.md, "Stacked coverage")
            {"key": "ties.mixed", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": {"sku_sets": [
                 {"key": "seed", "conversion": {"coverage_unit": "acre", "rates": [{"sku_key": "seed_unit", "rate": 1.0, "from": "unit"}]},
                  "rates": [{"sku_key": "seed_unit", "rate": 0}]},
                 {"key": "mixed", "conversion": {"coverage_unit": "acre", "rates": [
                     {"sku_key": "mix_a", "rate": "0.00921875", "from": "gal"}, {"sku_key": "mix_b", "rate": "0.0125", "from": "gal"}]},
                  "rates": [{"sku_key": "mix_a", "rate": 1.5}, {"sku_key": "mix_b", "rate": 1.5}]}],
                 "stacks": [{"sku_set_keys": ["seed", "mixed"]}]}},
            # $100 shared over three equal purchases: 33.333... each, rounded row by row
            {"key": "ties.thirds", "strategy_key": "standard", "calculator_key": "fixed_amount",
             "incentives": [{"key": "thirds", "rates": [{"sku_key": "bag", "rate": 100}]}]},
            # $0.05 over two equal purchases: 0.025 each, a tie
            {"key": "ties.halves", "strategy_key": "standard", "calculator_key": "fixed_amount",
             "incentives": [{"key": "halves", "rates": [{"sku_key": "jug", "rate": 0.05}]}]},
        ],
    }


def _measures_program() -> dict:
    """`actual` was rounded to 4 decimals: a CASE over the qualification types mixed DECIMAL(38,10)
    with the DECIMAL(38,4) quantity sums and DuckDB narrowed the result to DECIMAL(38,4), so 1.5 gal
    at a $1.0001 program price summed to 1.5002 instead of 1.50015, and `greater_than 1.50014` /
    `equal_to 1.50015` were decided wrongly."""
    return {
        "key": "measures", "time_periods": [],
        "offers": [{
            "key": "measures.o", "strategy_key": "standard", "calculator_key": "percent_of_amount",
            "incentives": [{"rates": [{"sku_key": "A", "rate": 10}]}],
            "qualifications": [
                {"type": "aggregated_amount", "key": "amt", "operator": "equal_to", "value": 1.50015,
                 "filters": [{"sku_keys": ["A"]}]},
                {"type": "property", "key": "plan", "operator": "less_than", "value": 85,
                 "property": {"key": "plan", "type": "number", "level": "request"}},
            ],
            "qualifier": "amt AND plan",
        }],
    }


def _ilevo_incentive() -> dict:
    return {"sku_sets": [
        {"key": "seed", "period_key": "season", "transaction_type": SELL,
         "conversion": {"coverage_unit": "acre", "rates": [{"sku_key": "seed_unit", "rate": 1.0, "from": "unit"}]},
         "rates": [{"sku_key": "seed_unit", "rate": 0}]},
        {"key": "seed_treatment", "period_key": "season", "transaction_type": SELL,
         "conversion": {"coverage_unit": "acre", "rates": [{"sku_key": "ilevo_gal", "rate": "0.00921875", "from": "gal"}]},
         "rates": [{"sku_key": "ilevo_gal", "rate": 1.25}]}],
        "stacks": [{"sku_set_keys": ["seed", "seed_treatment"]}]}


def _ilevo_rows() -> list[dict]:
    def sell(tid: str, sku: str, quantity: D, uom: str, amount: D) -> dict:
        return {"transaction_id": tid, "entity_id": "ilevo_r1", "transaction_type": SELL,
                "transaction_date": "2026-03-01", "sku_key": sku, "quantity": quantity, "uom_key": uom, "amount": amount}

    return [sell("S1", "seed_unit", D(14), "unit", D(4200)), sell("T1", "ilevo_gal", D(5), "gal", D(2500)),
            sell("T2", "ilevo_gal", D(15), "gal", D(7500)),
            sell("M1", "mix_a", D("3.3"), "gal", D(330)), sell("M2", "mix_b", D("7.1"), "gal", D(710)),
            sell("M3", "mix_a", D("1.9"), "gal", D(190))]


def _tables() -> dict:
    rows = _ilevo_rows()

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
    # the measures: 1.5 gal of A at the program price 1.0001
    rows.append({"transaction_id": "m1", "entity_id": "E", "transaction_type": BUY, "transaction_date": "2026-01-15",
                 "sku_key": "A", "quantity": D("1.5"), "uom_key": "gal", "amount": D(10)})
    return {"transactions": rows, "products": [],
            "properties": [{"level": "request", "entity_id": "E", "key": "plan", "value": "84.99999"}],
            "prices": [{"sku_key": "A", "price": "1.0001"}]}


def _round_half_away(x: D) -> D:
    return x.quantize(D("0.01"), rounding="ROUND_HALF_UP")


@pytest.fixture(scope="module", params=engine_params(SQL_ENGINES))
def engine(request: pytest.FixtureRequest) -> str:
    return request.param


@pytest.fixture(scope="module")
def results(engine: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[dict]]:
    """The ties and the measures on the engine: one run per engine for the module."""
    return run_engine(_programs(), _tables(), tmp_path_factory.mktemp(f"exact-{engine}"), target=engine,
                      extra_tables=("stack_coverage",))


@pytest.fixture(scope="module")
def expected() -> dict[str, list[dict]]:
    """The exact evaluator's results of the same programs and inputs (the same on every engine)."""
    return evaluate(_programs(), _tables())


def test_half_cent_ties_pay_the_cent_away_from_zero(results: dict[str, list[dict]], expected: dict[str, list[dict]]) -> None:
    ilevo = {r["transaction_id"]: r for r in results["potential_earnings"] if r["offer_key"] == "ties.ilevo"}
    assert {t: r["incentive_amount"] for t, r in ilevo.items()} == {"T1": D("4.38"), "T2": D("13.13")}
    assert [ilevo[t]["incentive_contribution_percent"] for t in ("T1", "T2")] == [D("0.0064531250")] * 2
    assert [ilevo[t]["incentivized_quantity"] for t in ("T1", "T2")] == [D("0.0322656250"), D("0.0967968750")]
    ilevo_total = {r["offer_key"]: r["incentive_amount"] for r in results["offer_results"] if r["entity_id"] == "ilevo_r1"}
    assert ilevo_total["ties.ilevo"] == D("17.51")
    coverage = {r["set_key"]: (r["set_coverage"], r["overlap"]) for r in results["stack_coverage"]
                if r["entity_id"] == "ilevo_r1" and r["offer_key"] == "ties.ilevo"}
    assert coverage == {"seed": (D(14), D(14)), "seed_treatment": (D("2169.4915254237"), D(14))}
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
    assert sorted(paid.items()) == sorted((r["transaction_id"], r["incentive_amount"])
                                          for r in expected["potential_earnings"])


def test_measures_keep_10_decimals(results: dict[str, list[dict]], expected: dict[str, list[dict]]) -> None:
    actual = {r["qualification_key"]: r["actual"] for r in results["qualification_results"]
              if r["entity_id"] == "E" and r["program_key"] == "measures"}
    assert actual == {"amt": D("1.50015"), "plan": D("84.99999")}
    (offer,) = [r for r in results["offer_results"] if r["entity_id"] == "E" and r["offer_key"] == "measures.o"]
    assert offer["qualified"] is True and offer["incentive_amount"] == D("0.15")  # 10% of 1.50015
    # every row of the program, for every participant, as the exact evaluator has it
    for name in ("qualification_results", "potential_earnings", "offer_results"):
        mine = [r for r in results[name] if r["program_key"] == "measures"]
        theirs = [r for r in expected[name] if r["program_key"] == "measures"]
        assert mine and normalized(mine) == normalized(theirs), name


# --------------------------------------------------------------------------- bounds of exact coverage

# the treatment's transactions: 10^5 of 99.9999 gal = 9,999,990 gal, under 10^7 (10^3 of 9,999.99
# gal, the same sum, where a run's statements cost more than its rows)
BOUNDS_TRANSACTIONS = {"duckdb": 100_000, "postgres": 100_000, "spark": 1_000}
BOUNDS_TOTAL_GALLONS = D("9999990")


def _bounds_programs() -> dict:
    return {"programs": [{"key": "bounds", "time_periods": [
        {"key": "season", "start_date": "2025-09-01", "end_date": "2026-08-31"}],
        "offers": [{"key": "bounds.stack", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
                    "incentive": _ilevo_incentive()}]}]}


def _bounds_tables(extra_gallons: D, transactions: int) -> dict:
    rows = [{"transaction_id": "seed", "entity_id": "big", "transaction_type": SELL, "transaction_date": "2026-03-01",
             "sku_key": "seed_unit", "quantity": D("9999999.9999"), "uom_key": "unit", "amount": D(1)}]
    for i in range(transactions):
        rows.append({"transaction_id": f"t{i:06d}", "entity_id": "big", "transaction_type": SELL,
                     "transaction_date": "2026-03-02", "sku_key": "ilevo_gal", "quantity": BOUNDS_TOTAL_GALLONS / transactions,
                     "uom_key": "gal", "amount": D("999999999.99") if i == 0 else D("12.34")})
    if extra_gallons:
        rows.append({"transaction_id": "past", "entity_id": "big", "transaction_type": SELL,
                     "transaction_date": "2026-03-03", "sku_key": "ilevo_gal", "quantity": extra_gallons,
                     "uom_key": "gal", "amount": D(1)})
    return {"transactions": rows, "products": []}


# DuckDB and PostgreSQL: Spark's two runs here took 5 minutes of the suite (the same SQL as
# DuckDB's limbs, dispatched; the ILEVO case above runs on every engine)
@pytest.mark.parametrize("engine", engine_params(DUCKDB_AND_POSTGRES))
def test_stacked_coverage_exact_at_its_bounds(tmp_path: Path, engine: str) -> None:
    from compiler.errors import RunError

    tables = _bounds_tables(D(0), BOUNDS_TRANSACTIONS[engine])
    results = run_engine(_bounds_programs(), tables, tmp_path / "within", target=engine)
    expected = evaluate(_bounds_programs(), tables)
    columns = ("incentive_amount", "incentivized_quantity", "incentivized_amount", "incentive_contribution_percent")

    def rows(result: dict) -> dict:
        return {r["transaction_id"]: tuple(D(str(r[c])) for c in columns) for r in result["potential_earnings"]}

    got, want = rows(results), rows(expected)
    assert len(got) == BOUNDS_TRANSACTIONS[engine] and got == want
    # 10 gal more: the treatment's quantities sum to 10^7, past the bounds
    with pytest.raises(RunError) as info:
        run_engine(_bounds_programs(), _bounds_tables(D(10), BOUNDS_TRANSACTIONS[engine]), tmp_path / "past", target=engine)
    text = str(info.value)
    assert "stacked offer bounds.stack, set seed_treatment, participant big" in text, text
    assert "beyond the bounds of exact coverage" in text and "10000000" in text, text
