"""Worked examples from the API reference, run through the reference evaluator (oracle)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal as D
from typing import Any

import pytest

from .evaluator import ProgramError, evaluate

PERIODS = [
    {"key": "incentive_period", "start_date": "2025-09-01", "end_date": "2026-08-31"},
    {"key": "prior_year_period", "start_date": "2024-09-01", "end_date": "2025-08-31"},
]
PURCHASE = "retailer_purchases_from_distribution"
GROWERS = "retailer_sales_to_growers"
AGRI = "agri_shield_insecticide_2.5_gal_53551"
AGRI_BULK = "agri_shield_insecticide_bulk_63374"
CROP = "crop_guard_30_l_herbicide_2.5_gal_22654"
FIELD = "field_hammer_fungicide_1_gal_61492"
ILEVO = "field_hammer_fungicide_bulk_52112"


def txn(tid: str, sku: str, qty: Any, amount: Any, date: Any = "2026-01-15", entity: str = "E1",
        ttype: str = PURCHASE, uom: str = "gal") -> dict[str, Any]:
    return {
        "transaction_id": tid, "entity_id": entity, "transaction_type": ttype,
        "transaction_date": date, "sku_key": sku, "quantity": qty, "uom_key": uom, "amount": amount,
    }


def flt(skus: list[str], period: str = "incentive_period", ttype: str = PURCHASE) -> dict[str, Any]:
    return {"period_key": period, "sku_keys": skus, "transaction_type": ttype}


def standard_offer(key: str = "P.base", rate: Any = 3.0, **extra: Any) -> dict[str, Any]:
    offer = {
        "key": key,
        "strategy_key": "standard",
        "calculator_key": "percent_of_amount",
        "incentives": [{
            "period_key": "incentive_period", "transaction_type": PURCHASE,
            "rates": [{"sku_key": AGRI, "rate": rate, "measure": "percent"}],
        }],
    }
    offer.update(extra)
    return offer


def program(offers: list[dict[str, Any]], **extra: Any) -> dict[str, Any]:
    p = {"key": "P", "time_periods": PERIODS, "offers": offers}
    p.update(extra)
    return {"programs": [p]}


AGG_AMOUNT = {
    "type": "aggregated_amount", "key": "minimum_cp_purchases", "operator": "greater_than_or_equal_to",
    "value": 100000.0, "filters": [flt([AGRI, AGRI_BULK, CROP])],
}
YOY = {
    "type": "yoy_amount_index", "key": "yoy_growth_requirement", "operator": "greater_than_or_equal_to",
    "value": 100.0,
    "numerator": {"filters": [flt([AGRI, AGRI_BULK])]},
    "denominator": {"filters": [flt([AGRI, AGRI_BULK], period="prior_year_period")]},
}


def test_aggregated_amount_met() -> None:
    progs = program([standard_offer()], qualifications=[AGG_AMOUNT], qualifier="minimum_cp_purchases")
    tables = {
        "transactions": [
            txn("t1", AGRI, 100, 50000),
            txn("t2", AGRI_BULK, 200, "60000.00"),
            txn("t3", CROP, 10, D("18500")),
            txn("t4", CROP, 10, 99999, date="2024-12-01"),  # outside the period
            txn("t5", CROP, 10, 99999, ttype=GROWERS),  # other transaction type
        ],
        "products": [],
    }
    out = evaluate(progs, tables)
    [row] = out["qualification_results"]
    assert row["qualification_level"] == "program"
    assert (row["target"], row["actual"], row["difference"]) == (D("100000"), D("128500"), D("28500"))
    assert row["met"] is True and row["waived"] is False
    assert row["actual"] == D("128500.0000000000")
    [offer] = out["offer_results"]
    assert offer["qualified"] and offer["incentive_amount"] == D("1500.00")
    [earn] = out["potential_earnings"]
    assert earn["incentive_rate_key"] == "incentive_period_retailer_purchases_from_distribution"
    assert earn["offer_sku_pay_rate"] == D("0.03")
    assert earn["incentive_effective_rate"] == D("0.03")


def _yoy_tables(**more: Any) -> dict[str, Any]:
    tables = {
        "transactions": [
            txn("c1", AGRI, 100, 50000),
            txn("c2", AGRI_BULK, 100, 58000),
            txn("p1", AGRI, 100, 115000, date="2025-02-01"),
        ],
        "products": [],
    }
    tables.update(more)
    return tables


def test_yoy_amount_index_not_met() -> None:
    progs = program([standard_offer()], qualifications=[YOY], qualifier="yoy_growth_requirement")
    out = evaluate(progs, _yoy_tables())
    [row] = out["qualification_results"]
    assert (row["target"], row["actual"], row["difference"]) == (D("115000"), D("108000"), D("-7000"))
    assert row["met"] is False and row["waived"] is False
    [offer] = out["offer_results"]
    assert offer["program_qualified"] is False and offer["offer_qualified"] is True
    assert offer["qualified"] is False and offer["incentive_amount"] == D("0.00")
    assert out["potential_earnings"] == []


def test_yoy_amount_index_waived_pays() -> None:
    progs = program([standard_offer()], qualifications=[YOY], qualifier="yoy_growth_requirement")
    waiver = {"program_key": "P", "qualification_key": "yoy_growth_requirement", "offer_key": None, "entity_id": ""}
    out = evaluate(progs, _yoy_tables(waivers=[waiver]))
    [row] = out["qualification_results"]
    assert row["met"] is False and row["waived"] is True
    [offer] = out["offer_results"]
    assert offer["qualified"] is True
    assert offer["incentive_amount"] == D("1500.00")  # 3% of 50000 (AGRI only)


def test_yoy_offer_level_waiver_does_not_waive_program_level() -> None:
    progs = program([standard_offer()], qualifications=[YOY], qualifier="yoy_growth_requirement")
    waiver = {"program_key": "P", "qualification_key": "yoy_growth_requirement", "offer_key": "P.base",
              "entity_id": "E1"}
    out = evaluate(progs, _yoy_tables(waivers=[waiver]))
    assert out["qualification_results"][0]["waived"] is False
    assert out["offer_results"][0]["qualified"] is False


def test_yoy_zero_denominator_met_whatever_operator() -> None:
    q = dict(YOY, operator="less_than")
    progs = program([standard_offer()], qualifications=[q], qualifier="yoy_growth_requirement")
    out = evaluate(progs, {"transactions": [txn("c1", AGRI, 1, 10)], "products": []})
    [row] = out["qualification_results"]
    assert row["target"] == 0 and row["actual"] == 10 and row["met"] is True


STACKED = {
    "key": "basf.ilevo",
    "strategy_key": "stacked",
    "calculator_key": "dollars_per_coverage_unit",
    "incentive": {
        "sku_sets": [
            {
                "key": "seed", "period_key": "incentive_period", "transaction_type": GROWERS,
                "conversion": {"coverage_unit": "acre",
                               "rates": [{"sku_key": AGRI_BULK, "rate": 1.0, "from": "unit"}]},
                "rates": [{"sku_key": AGRI_BULK, "rate": 0.0, "measure": "dollars"}],
            },
            {
                "key": "seed_treatment", "period_key": "incentive_period", "transaction_type": GROWERS,
                "conversion": {"coverage_unit": "acre",
                               "rates": [{"sku_key": ILEVO, "rate": 0.00921875, "from": "gal"}]},
                "rates": [{"sku_key": ILEVO, "rate": 0.75, "measure": "dollars"}],
            },
        ],
        "stacks": [{"sku_set_keys": ["seed", "seed_treatment"]}],
    },
}


def test_stacked_full_overlap() -> None:
    tables = {
        "transactions": [
            txn("s1", AGRI_BULK, 2000, 90000, ttype=GROWERS, uom="unit"),
            txn("s2", AGRI_BULK, 500, 1, ttype=GROWERS, uom="bag"),  # wrong uom: does not count
            txn("i1", ILEVO, 10, 4700, ttype=GROWERS, uom="gal"),
        ],
        "products": [],
    }
    out = evaluate(program([STACKED]), tables)
    [row] = out["potential_earnings"]  # the rate-0 seed anchor produces no row
    assert row["transaction_id"] == "i1"
    assert row["incentive_rate_key"] == "seed_and_seed_treatment"
    assert row["incentive_rate_measure"] == "dollars"
    assert row["offer_calculator"] == "dollars_per_coverage_unit" and row["strategy_key"] == "stacked"
    assert row["incentive_amount"] == D("813.56")
    assert row["incentive_contribution_percent"] == D("1")
    assert row["incentivized_quantity"] == D("10") and row["incentivized_amount"] == D("4700")
    assert row["incentive_effective_rate"] == D("0.1730978723")
    assert row["offer_sku_pay_rate"] == D("0.75") and row["incentive_rate_value"] == D("0.75")
    assert out["offer_results"][0]["incentive_amount"] == D("813.56")


def test_stacked_partial_overlap_and_no_overlap() -> None:
    # 800 acres of seed against 1084.7457627119 acres of treatment
    tables = {
        "transactions": [
            txn("s1", AGRI_BULK, 800, 1, ttype=GROWERS, uom="unit"),
            txn("i1", ILEVO, 10, 4700, ttype=GROWERS, uom="gal"),
        ],
        "products": [],
    }
    [row] = evaluate(program([STACKED]), tables)["potential_earnings"]
    contribution = D("0.7375000000")  # round10(800 / 1084.7457627119)
    assert row["incentive_contribution_percent"] == contribution
    assert row["incentivized_quantity"] == D("7.375")
    assert row["incentive_amount"] == D("600.00")  # round2(round10(1084.7457627119 x 0.7375) x 0.75)
    tables["transactions"] = tables["transactions"][1:]
    out = evaluate(program([STACKED]), tables)
    assert out["potential_earnings"] == [] and out["offer_results"][0]["incentive_amount"] == D("0.00")


def stepped_offer(threshold_definition: dict[str, Any], rates: list[dict[str, Any]],
                  calculator: str = "percent_of_amount", skus: list[str] | None = None) -> dict[str, Any]:
    return {
        "key": "offer_a", "strategy_key": "stepped", "calculator_key": calculator,
        "incentive": {
            "filters": [flt(skus or [AGRI, AGRI_BULK])],
            "threshold_definition": threshold_definition,
            "rates": rates,
        },
    }


AMOUNT_TIERS = [
    {"key": "15_percent_greater_than_or_equal_to_2000", "threshold": 2000.0, "value": 15.0, "measure": "percent"},
    {"key": "10_percent_greater_than_or_equal_to_1000", "threshold": 1000.0, "value": 10.0, "measure": "percent"},
]


def test_stepped_program_price() -> None:
    offer = stepped_offer({"type": "aggregated_amount", "filters": [flt([CROP, FIELD])]}, list(reversed(AMOUNT_TIERS)))
    tables = {
        "transactions": [
            txn("t1", AGRI, 1570, 86350),
            txn("h1", CROP, 1, 1500),
            txn("h2", FIELD, 1, 600),
        ],
        "products": [],
        "prices": [
            {"sku_key": AGRI, "price": 50, "start_date": "2025-09-01", "end_date": None},
            {"sku_key": AGRI, "price": 40, "start_date": None, "end_date": None},  # earlier start loses
            {"sku_key": AGRI, "price": 99, "start_date": "2026-02-01", "end_date": None},  # not yet valid
        ],
    }
    out = evaluate(program([offer]), tables)
    [row] = out["potential_earnings"]
    assert row["incentive_rate_key"] == "15_percent_greater_than_or_equal_to_2000"
    assert row["incentive_rate_measure"] == "percent"
    assert row["incentive_rate_value"] == D("15") and row["offer_sku_pay_rate"] == D("0.15")
    assert row["provided_quantity"] == D("1570") and row["provided_amount"] == D("86350")
    assert row["incentivized_quantity"] == D("1570") and row["incentivized_amount"] == D("78500")
    assert row["incentive_amount"] == D("11775.00")
    assert row["incentive_effective_rate"] == D("0.15")
    assert row["incentive_contribution_percent"] == D("1")


def test_stepped_below_lowest_tier_pays_nothing() -> None:
    offer = stepped_offer({"type": "aggregated_amount", "filters": [flt([CROP, FIELD])]}, AMOUNT_TIERS)
    tables = {"transactions": [txn("t1", AGRI, 1570, 86350), txn("h1", CROP, 1, 999.99)], "products": []}
    out = evaluate(program([offer]), tables)
    assert out["potential_earnings"] == []
    assert out["offer_results"][0]["qualified"] is True


PLAN_TIERS = [
    {"threshold": 100.0, "value": 2.0, "measure": "percent"},
    {"threshold": 85.0, "value": "1.90", "measure": "percent"},
    {"threshold": 75.0, "value": 1.88, "measure": "percent"},
]


def test_stepped_business_plan_property() -> None:
    offer = stepped_offer(
        {"type": "property", "property": {"key": "business_plan_achieved", "type": "number", "level": "request"}},
        PLAN_TIERS, skus=[CROP, FIELD],
    )
    tables = {
        "transactions": [txn("t1", CROP, 10, 1000), txn("t2", AGRI, 10, 1000), txn("x", CROP, 1, 1, entity="E2")],
        "products": [],
        "properties": [
            {"level": "request", "entity_id": "", "transaction_id": None, "key": "business_plan_achieved",
             "value": "90"},
            {"level": "request", "entity_id": "E2", "transaction_id": None, "key": "business_plan_achieved",
             "value": "74.5"},
        ],
    }
    out = evaluate(program([offer]), tables)
    [row] = out["potential_earnings"]
    assert row["entity_id"] == "E1" and row["transaction_id"] == "t1"
    assert row["incentive_rate_key"] == "1.9_percent_greater_than_or_equal_to_85"
    assert row["incentive_rate_value"] == D("1.9") and row["offer_sku_pay_rate"] == D("0.019")
    assert row["incentive_amount"] == D("19.00")


def test_stepped_transaction_level_property() -> None:
    offer = stepped_offer(
        {"type": "property", "property": {"key": "plan", "type": "number", "level": "transaction"}},
        PLAN_TIERS, skus=[CROP],
    )
    props = [
        {"level": "transaction", "entity_id": "E1", "transaction_id": "t1", "key": "plan", "value": "100"},
        {"level": "transaction", "entity_id": "E1", "transaction_id": "t2", "key": "plan", "value": "80"},
        {"level": "transaction", "entity_id": "E1", "transaction_id": "t3", "key": "plan", "value": "10"},
    ]
    tables = {"transactions": [txn(t, CROP, 1, 1000) for t in ("t1", "t2", "t3", "t4")], "products": [],
              "properties": props}
    rows = evaluate(program([offer]), tables)["potential_earnings"]
    assert [(r["transaction_id"], r["incentive_rate_key"], r["incentive_amount"]) for r in rows] == [
        ("t2", "1.88_percent_greater_than_or_equal_to_75", D("18.80")),
        ("t1", "2_percent_greater_than_or_equal_to_100", D("20.00")),
    ]
    with pytest.raises(ProgramError):
        evaluate(program([dict(offer, calculator_key="fixed_amount")]), tables)


def test_fixed_amount_shared_in_proportion() -> None:
    offer = stepped_offer({"type": "aggregated_quantity", "filters": [flt([AGRI])]},
                          [{"threshold": 1, "value": 100, "measure": "dollars"}], calculator="fixed_amount")
    tables = {"transactions": [txn("a", AGRI, 1, 1), txn("b", AGRI_BULK, 1, 2)], "products": []}
    rows = evaluate(program([offer]), tables)["potential_earnings"]
    assert [(r["incentive_amount"], r["incentive_contribution_percent"]) for r in rows] == [
        (D("33.33"), D("0.3333333333")), (D("66.67"), D("0.6666666667"))]
    assert rows[0]["incentive_rate_key"] == "100_dollars_greater_than_or_equal_to_1"


def test_qualifier_precedence_and_case() -> None:
    quals = [
        dict(AGG_AMOUNT, key="a", value=1),  # met
        dict(AGG_AMOUNT, key="b", value=10**9),  # not met
        dict(AGG_AMOUNT, key="c", value=10**9),  # not met
    ]
    tables = {"transactions": [txn("t1", AGRI, 1, 10)], "products": []}

    def qualified(expr: str | None) -> bool:
        offer = standard_offer(qualifications=quals, qualifier=expr)
        return evaluate(program([offer]), tables)["offer_results"][0]["offer_qualified"]

    assert qualified("a or b and c") is True  # a OR (b AND c)
    assert qualified("(a Or b) AnD c") is False
    assert qualified("b OR c") is False
    assert qualified("  ") is True and qualified(None) is True
    with pytest.raises(ProgramError):
        qualified("a AND missing")
    with pytest.raises(ProgramError):
        qualified("a AND (b")


def test_brand_count_and_property_qualifications() -> None:
    quals = [
        {"type": "brand_count", "key": "brands", "operator": "greater_than_or_equal_to", "value": 2,
         "filters": [flt([AGRI, AGRI_BULK, CROP, FIELD])], "brand_keys": ["agri", "crop", "field"],
         "excluded_sku_keys": [FIELD]},
        {"type": "property", "key": "cert", "operator": "equal_to", "value": True,
         "property": {"key": "certified", "type": "boolean", "level": "entity"}},
        {"type": "property", "key": "missing", "operator": "greater_than", "value": 1,
         "property": {"key": "nope", "type": "number", "level": "request"}},
    ]
    tables = {
        "transactions": [txn("t1", AGRI, 1, 10), txn("t2", CROP, 1, 10), txn("t3", CROP, -1, -10),
                         txn("t4", FIELD, 5, 10)],
        "products": [{"sku_key": AGRI, "brand_key": "agri"}, {"sku_key": CROP, "brand_key": "crop"},
                     {"sku_key": FIELD, "brand_key": "field"}],
        "properties": [{"level": "entity", "entity_id": "E1", "transaction_id": "", "key": "certified",
                        "value": "TRUE"}],
    }
    rows = {r["qualification_key"]: r for r in
            evaluate(program([standard_offer(qualifications=quals)]), tables)["qualification_results"]}
    assert rows["brands"]["actual"] == 1 and rows["brands"]["met"] is False  # crop nets to 0, field excluded
    assert rows["cert"]["actual"] == 1 and rows["cert"]["target"] == 1 and rows["cert"]["difference"] is None
    assert rows["cert"]["met"] is True
    assert rows["missing"]["actual"] is None and rows["missing"]["difference"] is None
    assert rows["missing"]["met"] is False


def test_enrollments_and_participants() -> None:
    progs = {"programs": [program([standard_offer()])["programs"][0],
                          dict(program([standard_offer("Q.base")])["programs"][0], key="Q")]}
    tables = {
        "transactions": [txn("t1", AGRI, 1, 10, date=dt.date(2026, 1, 1))],
        "products": [],
        "properties": [{"level": "entity", "entity_id": "E9", "transaction_id": None, "key": "k", "value": "1"}],
        "enrollments": [{"entity_id": "E1", "program_key": "Q"}, {"entity_id": "E9", "program_key": "P"}],
    }
    out = evaluate(progs, tables)
    assert [(r["entity_id"], r["program_key"]) for r in out["offer_results"]] == [("E1", "Q"), ("E9", "P")]


def test_compile_errors() -> None:
    with pytest.raises(ProgramError):
        evaluate(program([standard_offer()], qualifications=[dict(AGG_AMOUNT, operator="between")]),
                 {"transactions": []})
    with pytest.raises(ProgramError):
        evaluate(program([standard_offer(rate="0.12345678901")]), {"transactions": []})
    bad_period = standard_offer()
    bad_period["incentives"][0]["period_key"] = "nope"
    with pytest.raises(ProgramError):
        evaluate(program([bad_period]), {"transactions": []})
