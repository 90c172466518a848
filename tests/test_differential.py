"""Differential test: the real engine (compile + dbt build on DuckDB) against the oracle.

Hypothesis generates random but VALID catalogues (programs JSON) and random input tables; both
the engine (`tests/harness.run_engine`) and the independent plain-Python evaluator
(`tests/oracle/evaluator.evaluate`) compute qualification_results, potential_earnings and
offer_results, which must be equal row by row (`tests/harness.normalized`).

An engine run costs seconds, so every example is big: 3-6 programs with 2-4 offers each and
5-15 participants in one run. The catalogue is drawn choice by choice from hypothesis; the bulk
rows of the input tables (transactions, properties, prices, ...) come from a `random.Random`
seeded by a hypothesis draw, which keeps each example well inside hypothesis' per-example data
budget. Runs are derandomized (reproducible in CI); shrinking is off because every shrink step
would be an engine run: on a mismatch the failing case is kept on disk (programs.json and
data/*.csv, the exact engine inputs) and its path is printed with a diff of the first rows.

The same cases run on PostgreSQL and Spark (`test_postgres_agrees`, `test_spark_agrees`): each
example runs on DuckDB and on that engine, and both must equal the oracle and each other, row by
row and column by column (every column of the result tables, stack_coverage and run_warnings),
decimals compared by value, money to the cent. Those cases also carry random what-if scenarios
(add_scenarios): the scenario tables must equal the oracle's evaluate_scenarios and the baseline
tables its run without them (test_scenarios_match_oracle does the same on DuckDB).

Environment:
  INCENTIVES_DIFF_EXAMPLES  examples of the main test (default 8); the threads test runs a quarter
  INCENTIVES_DIFF_EXAMPLES_POSTGRES, INCENTIVES_DIFF_EXAMPLES_SPARK  examples of the engine
                            agreement tests (default 4 and 2: a Spark build takes half a minute;
                            docs/testing.md says why and when to run more)
  INCENTIVES_ENGINES        the engines to test (default duckdb,postgres,spark; see tests/harness.py)
  INCENTIVES_DIFF_SHRINK=1  let hypothesis shrink a failure (slow: seconds per step)
"""

from __future__ import annotations

import datetime as dt
import hashlib
import itertools
import json
import os
import pickle
import random
from decimal import Decimal as D
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from compiler.compile.write import write_atomically

from .harness import ENGINES, engine_params, normalized, run_engine, strip_to_semantics
from .oracle.evaluator import evaluate, evaluate_forecast, evaluate_scenarios

MAX_EXAMPLES = int(os.environ.get("INCENTIVES_DIFF_EXAMPLES", "8"))
ENGINE_EXAMPLES = {"postgres": int(os.environ.get("INCENTIVES_DIFF_EXAMPLES_POSTGRES", "4")),
                   "spark": int(os.environ.get("INCENTIVES_DIFF_EXAMPLES_SPARK", "2"))}
PHASES = (
    (Phase.explicit, Phase.reuse, Phase.generate, Phase.shrink)
    if os.environ.get("INCENTIVES_DIFF_SHRINK") == "1"
    else (Phase.explicit, Phase.reuse, Phase.generate)
)
SUPPRESS = [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example]

# --------------------------------------------------------------------------- universe

PURCHASE = "retailer_purchases_from_distribution"
GROWERS = "retailer_sales_to_growers"
CONTRACTOR = "contractor_purchases_from_distribution"
DISTRIBUTOR = "distributor_sales_to_retail"
INVENTORY = "inventory"
# the five transaction types, weighted towards two
WEIGHTED_TYPES = [PURCHASE] * 6 + [GROWERS] * 5 + [CONTRACTOR, DISTRIBUTOR, INVENTORY]

# sku -> (brand, usual uom); `ghost_seed_unit` is not in products (no brand)
SKUS: dict[str, tuple[Optional[str], str]] = {
    "agri_shield_2.5_gal": ("agri_shield", "gal"),
    "agri_shield_bulk": ("agri_shield", "gal"),
    "agri_seed_unit": ("agri_shield", "unit"),
    "crop_guard_10_l": ("crop_guard", "l"),
    "crop_guard_2.5_gal": ("crop_guard", "gal"),
    "field_hammer_bag": ("field_hammer", "bag"),
    "field_hammer_bulk": ("field_hammer", "gal"),
    "ghost_seed_unit": (None, "unit"),
}
SKU_LIST = list(SKUS)
BRANDS = sorted({b for b, _ in SKUS.values() if b})
UOMS = ["gal", "unit", "l", "bag", "oz"]
# referenced by programs, never transacted / not in products
NOWHERE_SKU = "nowhere_sku"

PRIOR = (dt.date(2024, 9, 1), dt.date(2025, 8, 31))
CURRENT = (dt.date(2025, 9, 1), dt.date(2026, 8, 31))
THREE_YEARS = (dt.date(2022, 9, 1), dt.date(2025, 8, 31))
DATA_START, DATA_END = dt.date(2022, 8, 1), dt.date(2026, 10, 31)

REQUEST_PROP = "business_plan_achieved_percent"  # number, request level (+ default row)
ENTITY_NUM_PROP = "loyalty_score"  # number, entity level
ENTITY_BOOL_PROP = "is_sustainability_certified"  # boolean, entity level
TXN_PROP = "acreage_tier"  # number, transaction level (stepped thresholds only)
NUMBER_TEXTS = ["85", "90", "100", "85.0", "84.9999", "84.99999", "85.000001", "1e2", "-3", "75", "0", "120.5",
                "abc", "12,5", "true"]
BOOL_TEXTS = ["true", "false", "TRUE", "False", "1", "0", "yes", "maybe"]

ABSENT = object()  # a JSON field left out


def put(obj: dict[str, Any], key: str, value: Any) -> None:
    if value is not ABSENT:
        obj[key] = value


# --------------------------------------------------------------------------- random source


class Gen:
    """Random choices, either drawn from hypothesis (`draw`) or from a seeded random.Random."""

    def __init__(self, draw: Optional[Callable[[Any], Any]] = None, rnd: Optional[random.Random] = None):
        self._draw = draw
        self._rnd = rnd

    def int(self, lo: int, hi: int) -> int:
        if self._draw is not None:
            return self._draw(st.integers(lo, hi))
        assert self._rnd is not None
        return self._rnd.randint(lo, hi)

    def count(self, lo: int, hi: int) -> int:
        """A size in [lo, hi]; hypothesis' simplest choice (0) is the largest size."""
        return hi - self.int(0, hi - lo)

    def chance(self, percent: int) -> bool:
        """True with about this probability; hypothesis' simplest choice (0) is False."""
        return self.int(0, 99) >= 100 - percent

    def pick(self, seq: Sequence[Any]) -> Any:
        return seq[self.int(0, len(seq) - 1)]

    def subset(self, seq: Sequence[Any], lo: int, hi: int) -> list[Any]:
        """Between lo and hi distinct elements of seq, in random order."""
        pool = list(seq)
        n = self.int(lo, min(hi, len(pool)))
        out = []
        for _ in range(n):
            out.append(pool.pop(self.int(0, len(pool) - 1)))
        return out

    def shuffled(self, seq: Sequence[Any]) -> list[Any]:
        return self.subset(seq, len(seq), len(seq))

    def date(self, lo: dt.date, hi: dt.date) -> dt.date:
        return lo + dt.timedelta(days=self.int(0, (hi - lo).days))

    def cents(self, lo: int, hi: int) -> D:
        """A number with at most 2 decimals in [lo, hi]."""
        return D(self.int(lo * 100, hi * 100)) / 100

    def keyword(self, word: str) -> str:
        """AND / OR in a random case."""
        return self.pick([word.upper(), word.lower(), word.capitalize(), word[0].lower() + word[1:].upper()])


# --------------------------------------------------------------------------- catalogue


def gen_period(g: Gen, key: str) -> dict[str, Any]:
    start = g.date(dt.date(2025, 6, 1), dt.date(2026, 6, 30))
    end = start + dt.timedelta(days=g.pick([181, 364, 30, 89, 0, 1]))
    p = {"key": key, "start_date": start.isoformat(), "end_date": end.isoformat()}
    if g.chance(50):
        p["label"] = key.replace("_", " ").title()
        p["start_date_label"] = None
    return p


def fixed_period(key: str, span: tuple[dt.date, dt.date]) -> dict[str, Any]:
    return {"key": key, "label": key, "start_date": span[0].isoformat(), "end_date": span[1].isoformat()}


def gen_sku_keys(g: Gen) -> Any:
    """An entry's sku_keys: absent / null / [] (any SKU) or 1-4 SKUs (sometimes unknown ones)."""
    r = g.int(0, 9)
    if r == 9:
        return ABSENT
    if r == 8:
        return None
    if r == 7:
        return []
    return g.subset(SKU_LIST + [NOWHERE_SKU], 1, 4)


def gen_filter_entry(g: Gen, periods: list[str]) -> dict[str, Any]:
    e: dict[str, Any] = {}
    put(e, "period_key", g.pick(periods * 4 + [ABSENT, None]))
    put(e, "sku_keys", gen_sku_keys(g))
    put(e, "transaction_type", g.pick(WEIGHTED_TYPES + [ABSENT, ABSENT, None]))
    return e


def gen_filters(g: Gen, periods: list[str]) -> list[dict[str, Any]]:
    """1-3 entries; sometimes overlapping on purpose (a copy, or a wider version of the first)."""
    if g.chance(3):
        return []
    entries = [gen_filter_entry(g, periods) for _ in range(g.count(1, 3))]
    if g.chance(25):
        first = dict(entries[0])
        if g.chance(50):
            first.pop("sku_keys", None)  # wider: any SKU
        entries.append(first)
    return entries


def pnum(g: Gen, pool: Sequence[str]) -> D:
    return D(g.pick(pool))


def gen_qualification(g: Gen, key: str, qtype: str, periods: list[str]) -> dict[str, Any]:
    q: dict[str, Any] = {"type": qtype, "key": key, "operator": g.pick(OPERATORS)}
    if g.chance(30):
        q["label"] = f"Label of {key}"
    if g.chance(30):
        q["attributes"] = []
    if qtype == "aggregated_amount":
        q["value"] = g.cents(0, 20000) if g.chance(30) \
            else pnum(g, ["1000", "0", "100", "2500.5", "5000", "20000", "-10", "0.01"])
        q["filters"] = gen_filters(g, periods)
    elif qtype == "aggregated_quantity":
        q["value"] = g.cents(0, 800) if g.chance(30) else pnum(g, ["50", "0", "10", "100.25", "500", "-1"])
        q["filters"] = gen_filters(g, periods)
    elif qtype == "brand_count":
        q["value"] = D(g.int(0, 3))
        q["filters"] = gen_filters(g, periods)
        put(q, "brand_keys", g.pick([g.subset(BRANDS + ["unknown_brand"], 1, 3), ABSENT, None, []]))
        put(q, "excluded_sku_keys", g.pick([g.subset(SKU_LIST + [NOWHERE_SKU], 1, 2), ABSENT, []]))
    elif qtype == "property":
        if g.chance(30):
            q["operator"] = "equal_to"
            q["value"] = g.pick([True, False])
            q["property"] = {"key": ENTITY_BOOL_PROP, "type": "boolean", "level": "entity"}
        else:
            level = g.pick(["request", "entity"])
            prop: dict[str, Any] = {"key": REQUEST_PROP if level == "request" else ENTITY_NUM_PROP, "level": level}
            put(prop, "type", g.pick(["number", "number", ABSENT]))
            q["property"] = prop
            q["value"] = pnum(g, ["85", "90", "100", "75", "0", "-3", "85.5", "120.5"])
    else:  # numerator / denominator types
        first, second = ("current", "prior") if "prior" in periods else ("current", "current")
        numerator = [e if g.chance(30) else dict(e, period_key=first) for e in gen_filters(g, periods)]
        if qtype == "amount_average_index":
            den_period = second if "three_years" not in periods or g.chance(30) else "three_years"
        else:
            den_period = second
        denominator_filters = gen_filters(g, periods)
        if not g.chance(40) and numerator:
            # "the same SKUs last year": the usual shape
            denominator_filters = [dict(e, period_key=den_period) for e in numerator]
        q["numerator"] = {"filters": numerator}
        q["denominator"] = {"filters": denominator_filters}
        if qtype == "amount_average_index":
            put(q["denominator"], "divisor", g.pick([D(3), ABSENT, D("2.5"), D(1), D("0.5")]))
            q["value"] = pnum(g, ["100", "110", "90", "0", "33.3333"])
        elif qtype == "share_of_wallet_percent":
            q["value"] = pnum(g, ["30", "50", "0", "100", "33.3333", "35.5"])
        else:
            q["value"] = pnum(g, ["100", "105", "90", "0", "100.5"])
    return q


OPERATORS = ["greater_than_or_equal_to", "greater_than", "less_than_or_equal_to", "less_than", "equal_to"]
QUAL_TYPES = [
    "aggregated_amount", "aggregated_quantity", "brand_count", "share_of_wallet_percent",
    "yoy_amount_index", "yoy_quantity_index", "amount_average_index", "property",
]


def gen_qualifications(g: Gen, periods: list[str], lo: int, hi: int) -> list[dict[str, Any]]:
    quals = []
    for i in range(g.count(lo, hi)):
        # q0, q1 ... (the same keys recur at program and offer level, which waivers must keep apart)
        key = g.pick([f"q{i}", f"q{i}", f"min_{i}.volume-check"])
        quals.append(gen_qualification(g, key, g.pick(QUAL_TYPES), periods))
    return quals


def gen_qualifier(g: Gen, keys: list[str]) -> Any:
    """A random AND / OR / parentheses expression over keys, or null / absent / blank."""
    if not keys or g.chance(20):
        return g.pick([ABSENT, None, "", "  "])

    def expr(depth: int) -> str:
        if depth >= 2 or g.chance(40):
            text = g.pick(keys)
            return f"({text})" if g.chance(10) else text
        word = g.keyword(g.pick(["AND", "OR"]))
        text = f" {word} ".join(expr(depth + 1) for _ in range(g.int(2, 3)))
        return f"({text})" if depth > 0 and g.chance(60) or g.chance(15) else text

    return expr(0)


def gen_rate_number(g: Gen, calculator: str) -> D:
    if calculator == "percent_of_amount":
        return pnum(g, ["3", "2.5", "0.125", "10", "15.0", "0", "1.9", "4.0001", "5", "0.5", "12.5"])
    if calculator == "dollars_per_unit":
        return pnum(g, ["0.5", "1", "1.25", "0.0125", "3", "0", "0.75", "0.005"])
    return pnum(g, ["100", "250.5", "1000", "0.01", "0", "33.3333", "0.05", "1.01"])  # fixed_amount


def gen_measure(g: Gen, calculator: str) -> Any:
    default = "percent" if calculator == "percent_of_amount" else "dollars"
    return g.pick([ABSENT, ABSENT, None, default, default])


def gen_standard(g: Gen, offer: dict[str, Any], periods: list[str]) -> None:
    calc = g.pick(["percent_of_amount", "dollars_per_unit", "fixed_amount"])
    offer["calculator_key"] = calc
    entries, used = [], set()
    for i in range(g.count(1, 3)):
        e: dict[str, Any] = {}
        key = g.pick([ABSENT, None, f"rk_{i}"])
        period = g.pick(periods * 3 + [ABSENT])
        ttype = g.pick([PURCHASE, GROWERS, ABSENT, PURCHASE, GROWERS, CONTRACTOR, DISTRIBUTOR, INVENTORY])
        generated = f"{'any' if period is ABSENT else period}_{'any' if ttype is ABSENT else ttype}"
        if key in (ABSENT, None) and generated in used:
            key = f"rk_{i}"
        used.add(key if key not in (ABSENT, None) else generated)
        put(e, "key", key)
        if g.chance(30):
            e["label"] = "Incentive"
        put(e, "period_key", period)
        put(e, "transaction_type", ttype)
        rates = []
        for sku in g.subset(SKU_LIST + [NOWHERE_SKU], 2, 6):
            r: dict[str, Any] = {"sku_key": sku, "rate": gen_rate_number(g, calc)}
            put(r, "measure", gen_measure(g, calc))
            rates.append(r)
        e["rates"] = rates
        entries.append(e)
    offer["incentives"] = entries


def gen_stepped(g: Gen, offer: dict[str, Any], periods: list[str]) -> None:
    calc = g.pick(["percent_of_amount", "dollars_per_unit", "fixed_amount"])
    offer["calculator_key"] = calc
    inc: dict[str, Any] = {"filters": gen_filters(g, periods) or [gen_filter_entry(g, periods)]}
    ttype = g.pick(["aggregated_amount", "aggregated_quantity", "property", "property"])
    td: dict[str, Any] = {"type": ttype}
    if ttype == "property":
        levels = ["request", "entity"] + ([] if calc == "fixed_amount" else ["transaction", "transaction"])
        level = g.pick(levels)
        key = {"request": REQUEST_PROP, "entity": ENTITY_NUM_PROP, "transaction": TXN_PROP}[level]
        td["property"] = {"key": key, "type": "number", "level": level}
        pool = ["-5", "0", "50", "75", "85", "90", "100", "120.5"]
    else:
        td["filters"] = gen_filters(g, periods)
        pool = (["-50", "0", "100", "500", "1000", "2500.5", "5000", "10000"] if ttype == "aggregated_amount"
                else ["-5", "0", "5", "10", "25.5", "50", "100", "400"])
    inc["threshold_definition"] = td
    tiers = []
    for j, threshold in enumerate(g.subset(pool, 1, 4)):
        tier: dict[str, Any] = {"threshold": D(threshold)}
        put(tier, "key", g.pick([ABSENT, ABSENT, None, f"tier_{j}"]))
        value = gen_rate_number(g, calc)
        where = g.pick(["value", "value", "rate", "both"])
        if where in ("value", "both"):
            tier["value"] = value
        if where in ("rate", "both"):
            tier["rate"] = value
        put(tier, "measure", gen_measure(g, calc))
        tiers.append(tier)
    inc["rates"] = g.shuffled(tiers)
    offer["incentive"] = inc


# gal (or units) per acre; 0.03 and 0.1875 (0.0625 x 3) have odd factors, like 0.00921875 (59/6400)
CONVERSION_RATES = ["1", "0.5", "0.00921875", "2.5", "0.25", "4", "0.05", "0.125", "0.03", "0.1875"]


def gen_stacked(g: Gen, offer: dict[str, Any], periods: list[str]) -> None:
    offer["calculator_key"] = "dollars_per_coverage_unit"
    n_sets = g.count(2, 4)
    order = g.shuffled(SKU_LIST)
    set_skus: list[list[str]] = []
    pos = 0
    for i in range(n_sets):
        n = g.int(1, 2)
        skus = order[pos:pos + n] or [order[-1]]
        pos += n
        if i >= 2 and g.chance(30):
            skus = skus + [set_skus[0][0]]  # shares a SKU with set 0: never stacked together with it
        set_skus.append(list(dict.fromkeys(skus)))
    names = g.pick([["seed", "treatment", "inoculant", "herbicide"], ["s0", "s1", "s2", "s3"]])
    sets = []
    for i, skus in enumerate(set_skus):
        s: dict[str, Any] = {"key": names[i]}
        put(s, "period_key", g.pick(["current", ABSENT, "current", *periods]))
        put(s, "transaction_type", g.pick([GROWERS, ABSENT, GROWERS, PURCHASE]))
        conv = []
        shared_rate = g.pick(CONVERSION_RATES) if g.chance(50) else None  # pack sizes of one product
        for sku in skus:
            uom = g.pick(UOMS) if g.chance(15) else SKUS[sku][1]
            conv.append({"sku_key": sku, "rate": D(shared_rate or g.pick(CONVERSION_RATES)), "from": uom})
        s["conversion"] = {"coverage_unit": "acre", "rates": conv}
        rates = []
        for sku in skus:
            r = g.int(0, 3)
            if r == 0:
                continue  # anchor listed only in the conversion
            rate: dict[str, Any] = {"sku_key": sku, "rate": D(0) if r == 1 else pnum(g, ["0.75", "1", "2.5", "0.1234", "1.25", "0.375"])}
            put(rate, "measure", g.pick([ABSENT, "dollars"]))
            rates.append(rate)
        s["rates"] = rates
        sets.append(s)
    # stacks: combinations of 2-3 sets (rarely 1) whose SKUs are disjoint
    combos = []
    for size in (1, 2, 3):
        for combo in itertools.combinations(range(n_sets), size):
            skus = [sku for i in combo for sku in set_skus[i]]
            if len(skus) == len(set(skus)):
                combos.append(combo)
    multi = [c for c in combos if len(c) > 1]
    chosen = [g.pick(multi)]
    for _ in range(g.count(0, 2)):
        c = g.pick(combos if g.chance(15) else multi)
        if c not in chosen:
            chosen.append(c)
    stacks, keys = [], set()
    for i, combo in enumerate(chosen):
        set_keys = [names[j] for j in g.shuffled(list(combo))]
        key = g.pick([ABSENT, None, f"stack_{i}"])
        resolved = "_and_".join(set_keys) if key in (ABSENT, None) else key
        if resolved in keys:
            key = resolved = f"stack_{i}"
        keys.add(resolved)
        st_: dict[str, Any] = {"sku_set_keys": set_keys}
        put(st_, "key", key)
        stacks.append(st_)
    offer["incentive"] = {"sku_sets": g.shuffled(sets), "stacks": stacks}


def gen_program(g: Gen, index: int) -> dict[str, Any]:
    key = g.pick([f"prog{index}", f"mfr_{index}.2026.retailer.national.program"])
    periods = [fixed_period("current", CURRENT), fixed_period("prior", PRIOR)]
    if g.chance(50):
        periods.append(fixed_period("three_years", THREE_YEARS))
    if g.chance(40):
        periods.append(gen_period(g, "early_order"))
    program: dict[str, Any] = {"key": key, "label": f"Program {index}", "time_periods": g.shuffled(periods)}
    if g.chance(30):
        program["supplier"] = {"key": "acme"}  # unknown field, ignored
    program_period_keys = [p["key"] for p in periods]
    quals = gen_qualifications(g, program_period_keys, 0, 3)
    program["qualifications"] = quals
    put(program, "qualifier", gen_qualifier(g, [q["key"] for q in quals]))
    offers = []
    for o in range(g.count(2, 4)):
        offer: dict[str, Any] = {"key": f"{key}.offer{o}", "label": f"Offer {o}"}
        offer_periods = []
        if g.chance(30):
            offer_periods.append(gen_period(g, "current"))  # overrides the program's period
        if g.chance(25):
            offer_periods.append(gen_period(g, "offer_window"))
        if offer_periods or g.chance(50):
            offer["time_periods"] = offer_periods
        keys = sorted(set(program_period_keys) | {p["key"] for p in offer_periods})
        strategy = g.pick(["standard", "standard", "stepped", "stepped", "stacked"])
        offer["strategy_key"] = strategy
        {"standard": gen_standard, "stepped": gen_stepped, "stacked": gen_stacked}[strategy](g, offer, keys)
        oquals = gen_qualifications(g, keys, 0, 2)
        if oquals or g.chance(50):
            offer["qualifications"] = oquals
        put(offer, "qualifier", gen_qualifier(g, [q["key"] for q in oquals]))
        if g.chance(30):
            offer["attributes"] = [{"type": "tier", "value": "base", "label": "Base"}]
            offer["transaction_types"] = [PURCHASE]
        offers.append(offer)
    program["offers"] = offers
    return program


def json_numbers(g: Gen, obj: Any) -> Any:
    """Decimals as JSON numbers (int or float, both exact) or, rarely, kept as Decimal (the harness
    writes those as JSON strings, which the engine also reads as exact numbers)."""
    if isinstance(obj, dict):
        return {k: json_numbers(g, v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [json_numbers(g, v) for v in obj]
    if isinstance(obj, D):
        r = g.int(0, 9)
        if r == 9:
            return obj
        if obj == obj.to_integral_value() and r >= 5:
            return int(obj)
        f = float(obj)
        assert D(repr(f)) == obj, obj
        return f
    return obj


def boundary_dates(programs: list[dict[str, Any]]) -> list[dt.date]:
    """Every period start / end and the days around them."""
    out = set()

    def walk(obj: Any) -> None:
        if isinstance(obj, dict):
            for k, v in obj.items():
                if k in ("start_date", "end_date") and isinstance(v, str):
                    d = dt.date.fromisoformat(v)
                    out.update({d - dt.timedelta(days=1), d, d + dt.timedelta(days=1)})
                else:
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)

    walk(programs)
    return sorted(out)


# --------------------------------------------------------------------------- data


def gen_tables(g: Gen, r: Gen, programs: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Input tables: shape decisions from `g` (hypothesis), row contents from `r` (seeded random)."""
    n_entities = g.count(5, 15)
    entities = [f"retailer_{i:03d}" for i in range(1, n_entities + 1)]
    boundaries = boundary_dates(programs)
    unit_price = {sku: r.cents(5, 120) for sku in SKU_LIST}

    def txn_date() -> dt.date:
        k = r.int(0, 99)
        if k < 30:
            return r.pick(boundaries)
        if k < 78:
            return r.date(*CURRENT)
        if k < 95:
            return r.date(*PRIOR)
        return r.date(DATA_START, DATA_END)

    transactions = []
    tid = 0
    for e in entities:
        for _ in range(r.pick([0, 2, 6, 10, 14, 18, 22, 26])):
            tid += 1
            sku = r.pick(SKU_LIST)
            k = r.int(0, 99)
            if k < 10:
                qty = -r.cents(1, 60)  # return
            elif k < 15:
                qty = D(0)
            else:
                qty = r.cents(0, 400) if r.chance(70) else D(r.int(1, 400))
            k = r.int(0, 99)
            if k < 75:
                amount = (qty * unit_price[sku]).quantize(D("0.01"))
            elif k < 85:
                amount = D(0)
            else:
                amount = r.cents(-2000, 30000)
            transactions.append({
                "transaction_id": f"T{tid:05d}-{r.int(0, 9999):04d}",
                "entity_id": e,
                "transaction_type": r.pick(WEIGHTED_TYPES),
                "transaction_date": txn_date().isoformat(),
                "sku_key": sku,
                "quantity": qty,
                "uom_key": SKUS[sku][1] if r.chance(88) else r.pick(UOMS),
                "amount": amount,
            })
    # stacked offers need an entity to buy the SKUs of several sets: add such bundles to some entities
    stacked = []
    for p in programs:
        periods = {tp["key"]: tp for tp in p.get("time_periods") or []}
        for o in p["offers"]:
            if o["strategy_key"] == "stacked":
                merged = {**periods, **{tp["key"]: tp for tp in o.get("time_periods") or []}}
                stacked.append((o, merged))
    for e in entities:
        if not stacked or r.chance(40):
            continue
        offer, periods = r.pick(stacked)
        for s in offer["incentive"]["sku_sets"]:
            period = periods.get(s.get("period_key"))
            span = (dt.date.fromisoformat(period["start_date"]), dt.date.fromisoformat(period["end_date"])) \
                if period else CURRENT
            for conv in r.subset(s["conversion"]["rates"], 1, 2):
                tid += 1
                qty = r.cents(1, 300) if r.chance(90) else -r.cents(1, 50)
                if D(str(conv["rate"])) == D("0.00921875") and r.chance(50):
                    qty = D("0.59") * r.int(1, 40)  # 64 acres each: exact coverage, so ties can happen
                elif r.chance(30):
                    qty = D(r.int(1, 40))  # whole units: shares of a set of one rate are short decimals
                transactions.append({
                    "transaction_id": f"T{tid:05d}-{r.int(0, 9999):04d}",
                    "entity_id": e,
                    "transaction_type": s.get("transaction_type") or r.pick(WEIGHTED_TYPES),
                    "transaction_date": r.date(*span).isoformat(),
                    "sku_key": conv["sku_key"],
                    "quantity": qty,
                    "uom_key": conv["from"] if r.chance(90) else r.pick(UOMS),
                    "amount": (qty * unit_price[conv["sku_key"]]).quantize(D("0.01")),
                })
    products = [{"sku_key": s, "brand_key": b} for s, (b, _) in SKUS.items() if b]
    products.append({"sku_key": "unsold_sku", "brand_key": "crop_guard"})
    tables: dict[str, list[dict[str, Any]]] = {"transactions": transactions, "products": r.shuffled(products)}

    # properties
    props: list[dict[str, Any]] = []
    if not g.chance(15):
        for e in entities + ["retailer_999"]:  # 999: request row only, not a participant
            if r.chance(60):
                props.append({"level": "request", "entity_id": e, "key": REQUEST_PROP, "value": r.pick(NUMBER_TEXTS)})
                if r.chance(10):  # a second row: the smallest text is used
                    props.append({"level": "request", "entity_id": e, "key": REQUEST_PROP, "value": r.pick(NUMBER_TEXTS)})
            if r.chance(50):
                props.append({"level": "entity", "entity_id": e, "key": ENTITY_NUM_PROP, "value": r.pick(NUMBER_TEXTS)})
            if r.chance(50):
                props.append({"level": "entity", "entity_id": e, "key": ENTITY_BOOL_PROP, "value": r.pick(BOOL_TEXTS)})
            if r.chance(10):  # the same key at another level must not be picked up
                props.append({"level": "entity", "entity_id": e, "key": REQUEST_PROP, "value": "999"})
                props.append({"level": "request", "entity_id": e, "key": ENTITY_NUM_PROP, "value": "999"})
        if g.chance(70):  # request default row (empty entity_id)
            props.append({"level": "request", "entity_id": "", "key": REQUEST_PROP, "value": r.pick(NUMBER_TEXTS)})
        if g.chance(50):  # participants known only from an entity-level property
            props.append({"level": "entity", "entity_id": "retailer_900", "key": ENTITY_BOOL_PROP, "value": "true"})
            props.append({"level": "entity", "entity_id": "retailer_901", "key": ENTITY_NUM_PROP, "value": "100"})
        for t in transactions:
            if r.chance(45):
                props.append({"level": "transaction", "entity_id": t["entity_id"] if r.chance(80) else "",
                              "transaction_id": t["transaction_id"], "key": TXN_PROP, "value": r.pick(NUMBER_TEXTS)})
        tables["properties"] = r.shuffled(props)

    # prices (overlapping periods, open ends, ties)
    if g.chance(50):
        prices = []
        for sku in r.subset(SKU_LIST, 1, 4):
            for _ in range(r.int(1, 3)):
                start = r.pick([None, PRIOR[0], CURRENT[0], dt.date(2026, 3, 1), r.date(*PRIOR), r.date(*CURRENT)])
                end = r.pick([None, PRIOR[1], CURRENT[1], dt.date(2026, 2, 28), r.date(*CURRENT)])
                if start is not None and end is not None and end < start:
                    end = None
                price = D(r.int(50, 12000)) / D(100)
                if r.chance(30):  # 4 decimals: values with up to 6 decimals
                    price = D(r.int(5000, 1200000)) / D(10000)
                prices.append({"sku_key": sku, "price": price, "start_date": start, "end_date": end})
            if r.chance(30):  # same period, two prices: the lowest wins
                dup = dict(prices[-1])
                dup["price"] = dup["price"] + D("1.5")
                prices.append(dup)
        tables["prices"] = prices

    # waivers
    if g.chance(70):
        waivers = []
        for _ in range(g.count(0, 6)):
            p = r.pick(programs)
            pquals = [q["key"] for q in p.get("qualifications") or []]
            offer = r.pick(p["offers"])
            oquals = [q["key"] for q in offer.get("qualifications") or []]
            kind = r.int(0, 9)
            entity = r.pick(entities) if r.chance(60) else ""
            if kind < 4 and pquals:
                waivers.append({"program_key": p["key"], "qualification_key": r.pick(pquals), "offer_key": "",
                                "entity_id": entity})
            elif kind < 8 and oquals:
                waivers.append({"program_key": p["key"], "qualification_key": r.pick(oquals),
                                "offer_key": offer["key"], "entity_id": entity})
            elif kind == 8 and pquals:  # a program-level key with an offer_key: waives only that offer's own
                waivers.append({"program_key": p["key"], "qualification_key": r.pick(pquals),
                                "offer_key": offer["key"], "entity_id": entity})
            else:
                waivers.append({"program_key": r.pick([p["key"], "no_such_program"]), "qualification_key": "q9",
                                "offer_key": "", "entity_id": entity})
        tables["waivers"] = waivers

    # enrollments: absent, empty (= everyone), or some (entity, program) pairs
    mode = g.int(0, 9)
    if mode == 9:
        tables["enrollments"] = []
    elif mode >= 5:
        rows = [{"entity_id": e, "program_key": p["key"]} for e in entities + ["retailer_900"] for p in programs
                if r.chance(60)]
        rows.append({"entity_id": entities[0], "program_key": "no_such_program"})
        rows.append({"entity_id": "retailer_777", "program_key": programs[0]["key"]})
        tables["enrollments"] = rows
    return tables


class Case(dict):
    """{"programs": ..., "tables": ...} with a short repr (hypothesis prints the failing example)."""

    def __repr__(self) -> str:
        programs = self["programs"]["programs"]
        offers = sum(len(p["offers"]) for p in programs)
        sizes = ", ".join(f"{k} {len(v)}" for k, v in sorted(self["tables"].items()))
        return f"<case: {len(programs)} programs, {offers} offers; {sizes}>"


@st.composite
def cases(draw: Callable[[Any], Any], min_programs: int = 3, max_programs: int = 6) -> Case:
    g = Gen(draw=draw)
    programs = [gen_program(g, i) for i in range(g.count(min_programs, max_programs))]
    programs = json_numbers(g, programs)
    # exactly what the engine reads: ints / floats / numeric strings as the harness writes them
    catalogue = json.loads(json.dumps({"programs": programs}, default=str))
    r = Gen(rnd=random.Random(draw(st.integers(0, 2**32 - 1))))
    tables = gen_tables(g, r, catalogue["programs"])
    add_ties(r, catalogue, tables)
    return Case(programs=catalogue, tables=tables)


# --------------------------------------------------------------------------- half-cent ties

TIE_ENTITY = "retailer_tie"


def tie_stack_quantities(conversion_rate: str, pick: int) -> tuple[D, D, D, D]:
    """(anchor quantity, q1, q2, pay rate) of a stack of an anchor set (1 gal per acre) and a set
    of two transactions whose first row's exact incentive is a half-cent tie.

    0.125 and 0.05 gal per acre: the set covers 900 acres and the anchor 300, so the contribution
    is 1/3, and c1 x 1.25 x 300 / 900 is 321.875, 20.625, 6.625 or 1.325 for c1 = 772.5, 49.5,
    15.9, 3.18 acres: a contribution rounded to 10 places first paid 321.87, 20.62, 6.62, 1.32.
    0.00921875 gal per acre (59/6400): quantities of 0.59 gal cover exactly 64 acres; the set covers
    512 acres, and 64 k x 0.75 x 300 / 512 = 28.125 k is a tie for every odd k."""
    if conversion_rate == "0.00921875":
        k1 = (1, 3, 5, 7)[pick % 4]
        return D(300), D("0.59") * k1, D("0.59") * (8 - k1), D("0.75")
    c1 = (D("772.5"), D("49.5"), D("15.9"), D("3.18"))[pick % 4]
    cr = D(conversion_rate)
    return D(300), c1 * cr, (D(900) - c1) * cr, D("1.25")


# conversion rates that cancel in a set's shares -> (M, seed pay rate): the treatment covers
# K = M x odd acres with K x rate gal (at most 4 decimals), and the seed rows pay
# rate x K x s / 20 = odd / 8, a half-cent tie
CANCEL_RATES = {"0.00921875": (64, "0.0390625"), "0.03": (4, "0.625"), "0.1875": (16, "0.15625"),
                "0.0625": (16, "0.15625")}


def _cancel_incentive(rate: str, pay_seed: bool) -> dict[str, Any]:
    """A seed set and a treatment set of pack sizes sharing one conversion rate. Treatment paying
    (1 seed unit per acre, $1.25 an acre of treatment): the seed's 2 x odd acres limit the
    overlap, and the rows of q1 + q2 = 20 gal (odd) pay 1.25 x A x q / 20 = A q / 16 = odd / 8.
    Seed paying (`pay_seed`: 0.01 unit per acre, so 20 units cover 2,000 acres): the treatment's
    K acres limit it, and the seed rows pay (CANCEL_RATES) x K x s / 20."""
    if pay_seed:
        return {"sku_sets": [
            {"key": "seed", "conversion": {"coverage_unit": "acre", "rates": [
                {"sku_key": sku, "rate": "0.01", "from": "gal"} for sku in ("tie_seed_b1", "tie_seed_b2")]},
             "rates": [{"sku_key": sku, "rate": CANCEL_RATES[rate][1]} for sku in ("tie_seed_b1", "tie_seed_b2")]},
            {"key": "treatment", "conversion": {"coverage_unit": "acre", "rates": [
                {"sku_key": "tie_pack_b", "rate": rate, "from": "gal"}]},
             "rates": [{"sku_key": "tie_pack_b", "rate": 0}]}],
            "stacks": [{"sku_set_keys": ["seed", "treatment"]}]}
    return {"sku_sets": [
        {"key": "seed", "conversion": {"coverage_unit": "acre", "rates": [{"sku_key": "tie_seed", "rate": 1, "from": "gal"}]},
         "rates": [{"sku_key": "tie_seed", "rate": 0}]},
        {"key": "treatment", "conversion": {"coverage_unit": "acre", "rates": [
            {"sku_key": sku, "rate": rate, "from": "gal"} for sku in ("tie_pack1", "tie_pack2")]},
         "rates": [{"sku_key": sku, "rate": "1.25"} for sku in ("tie_pack1", "tie_pack2")]}],
        "stacks": [{"sku_set_keys": ["seed", "treatment"]}]}


def add_ties(r: Gen, catalogue: dict[str, Any], tables: dict[str, list[dict[str, Any]]]) -> None:
    """Every case also holds a program whose rows pay exact half-cent ties in every strategy and
    calculator (and fixed_amount totals that split into thirds), bought by one participant."""
    conversion = r.pick(["0.125", "0.05", "0.00921875"])
    anchor_qty, q1, q2, stack_rate = tie_stack_quantities(conversion, r.int(0, 3))
    cancel_rate = r.pick(sorted(CANCEL_RATES))
    odd = lambda lo, hi: 2 * r.int(lo, hi) + 1  # noqa: E731
    # ties.cancel and ties.cancel_seed (_cancel_incentive): A = 2 x odd seed acres, q1 + q2 = 20
    # gal; K = M x odd treatment acres, s1 + s2 = 20 seed units
    seed_acres, t1 = D(2 * odd(0, 12)), D(odd(0, 9))
    k_acres, s1 = CANCEL_RATES[cancel_rate][0] * odd(0, 7), D(odd(0, 9))
    anchor_larger = r.chance(30)  # the overlap on the other side: the paying set is the smaller
    if anchor_larger:
        anchor_qty = D(5000)
    standard_rates = [{"sku_key": "tie_pct", "rate": 5}, {"sku_key": "tie_pct_b", "rate": 2.5}]
    program = {
        "key": "ties", "time_periods": [fixed_period("current", CURRENT)],
        "offers": [
            {"key": "ties.pct", "strategy_key": "standard", "calculator_key": "percent_of_amount",
             "incentives": [{"key": "pct", "rates": standard_rates}]},
            {"key": "ties.dpu", "strategy_key": "standard", "calculator_key": "dollars_per_unit",
             "incentives": [{"key": "dpu", "rates": [{"sku_key": "tie_dpu", "rate": 0.5},
                                                     {"sku_key": "tie_dpu_b", "rate": 1.25}]}]},
            {"key": "ties.fixed", "strategy_key": "standard", "calculator_key": "fixed_amount",
             "incentives": [{"key": "fix", "rates": [{"sku_key": "tie_fix_half", "rate": 0.05},
                                                     {"sku_key": "tie_fix_third", "rate": 100}]}]},
            {"key": "ties.stepped", "strategy_key": "stepped", "calculator_key": "percent_of_amount",
             "incentive": {"filters": [{"sku_keys": ["tie_step"]}],
                           "threshold_definition": {"type": "aggregated_amount", "filters": [{"sku_keys": ["tie_step"]}]},
                           "rates": [{"threshold": 0, "value": 2.5}, {"threshold": 1000000, "value": 5}]}},
            {"key": "ties.stepped_dpu", "strategy_key": "stepped", "calculator_key": "dollars_per_unit",
             "incentive": {"filters": [{"sku_keys": ["tie_dpu"]}],
                           "threshold_definition": {"type": "aggregated_quantity", "filters": [{"sku_keys": ["tie_dpu"]}]},
                           "rates": [{"threshold": 0, "value": 0.5}]}},
            {"key": "ties.stepped_fixed", "strategy_key": "stepped", "calculator_key": "fixed_amount",
             "incentive": {"filters": [{"sku_keys": ["tie_fix_third"]}],
                           "threshold_definition": {"type": "aggregated_amount", "filters": [{"sku_keys": ["tie_fix_third"]}]},
                           "rates": [{"threshold": 0, "value": 100}]}},
            {"key": "ties.stack", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": {
                 "sku_sets": [
                     {"key": "anchor", "conversion": {"coverage_unit": "acre", "rates": [
                         {"sku_key": "tie_anchor", "rate": 1, "from": "gal"}]},
                      "rates": [{"sku_key": "tie_anchor", "rate": 0.75 if anchor_larger else 0}]},
                     {"key": "paying", "conversion": {"coverage_unit": "acre", "rates": [
                         {"sku_key": "tie_cov1", "rate": conversion, "from": "gal"},
                         {"sku_key": "tie_cov2", "rate": conversion, "from": "gal"}]},
                      "rates": [{"sku_key": "tie_cov1", "rate": str(stack_rate)},
                                {"sku_key": "tie_cov2", "rate": str(stack_rate)}]}],
                 "stacks": [{"sku_set_keys": ["anchor", "paying"]}]}},
            # the conversion rate cancels (pack sizes of one product share it): shares of the
            # set are exact short decimals, half cents on either side of the overlap
            {"key": "ties.cancel", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": _cancel_incentive(cancel_rate, pay_seed=False)},
            {"key": "ties.cancel_seed", "strategy_key": "stacked", "calculator_key": "dollars_per_coverage_unit",
             "incentive": _cancel_incentive(cancel_rate, pay_seed=True)},
        ],
    }
    catalogue["programs"].append(json.loads(json.dumps(program, default=str)))
    rows: list[tuple[str, D, D]] = [  # (sku, quantity, amount)
        ("tie_pct", D(1), D(odd(0, 500)) / 10),         # amount x 5% = x.xx5
        ("tie_pct", D(-1), -D(odd(0, 50)) / 10),        # a return: -x.xx5 rounds away from zero
        ("tie_pct_b", D(2), D(odd(0, 500)) / 5),        # x 2.5%
        ("tie_dpu", D(odd(0, 500)) / 100, D(10)),       # quantity x $0.50
        ("tie_dpu_b", D(odd(0, 500)) / 50, D(10)),      # x $1.25
        ("tie_fix_half", D(1), D(10)), ("tie_fix_half", D(1), D(10)),  # $0.05 / 2
        ("tie_fix_third", D(1), D(7)), ("tie_fix_third", D(1), D(7)), ("tie_fix_third", D(1), D(7)),
        ("tie_step", D(1), D(odd(0, 500)) / 5),         # x 2.5%
        ("tie_anchor", anchor_qty, D(100)), ("tie_cov1", q1, D(100)), ("tie_cov2", q2, D(100)),
        ("tie_seed", seed_acres, D(100)), ("tie_pack1", t1, D(100)), ("tie_pack2", D(20) - t1, D(100)),
        ("tie_seed_b1", s1, D(100)), ("tie_seed_b2", D(20) - s1, D(100)),
        ("tie_pack_b", D(cancel_rate) * k_acres, D(100)),
    ]
    for i, (sku, qty, amount) in enumerate(rows):
        tables["transactions"].append({
            "transaction_id": f"TIE{i:03d}", "entity_id": TIE_ENTITY, "transaction_type": PURCHASE,
            "transaction_date": r.date(*CURRENT).isoformat(), "sku_key": sku, "quantity": qty, "uom_key": "gal",
            "amount": amount})
    if tables.get("enrollments"):
        tables["enrollments"].append({"entity_id": TIE_ENTITY, "program_key": "ties"})


# --------------------------------------------------------------------------- comparison

RESULTS = ("qualification_results", "potential_earnings", "offer_results")
SCENARIO_RESULTS = ("scenario_results", "scenario_earnings")
# the forecast rides with the scenarios: every run of them also projects the season (_forecast_of)
FORECAST_RESULTS = ("forecast_results",)
NATURAL_KEYS = {
    "forecast_results": ("entity_id", "offer_key"),
    "scenario_results": ("scenario_id", "entity_id", "offer_key"),
    "scenario_earnings": ("scenario_id", "entity_id", "offer_key", "incentive_rate_key", "transaction_id"),
    "qualification_results": ("entity_id", "program_key", "offer_key", "qualification_key", "qualification_level"),
    "potential_earnings": ("entity_id", "program_key", "offer_key", "incentive_rate_key", "transaction_id"),
    "offer_results": ("entity_id", "program_key", "offer_key"),
}
SHOW = 5


MONEY = {"incentive_amount"}
# the oracle is exact and so is the engine (every quotient is computed once and rounded to its
# column): every column must be equal, to the last place
TOLERANCE = D(0)


def _close(field: str, a: Any, b: Any) -> bool:
    if a == b:
        return True
    return (field not in MONEY and isinstance(a, D) and isinstance(b, D) and abs(a - b) <= TOLERANCE)


def diff_report(name: str, engine_rows: list[dict[str, Any]], oracle_rows: list[dict[str, Any]],
                tolerant: bool = True) -> Optional[str]:
    """None when equal (money exactly, other decimals to 1e-9 when `tolerant`), else a readable
    account of the first differing rows."""
    e_norm, o_norm = normalized(engine_rows), normalized(oracle_rows)
    if e_norm == o_norm:
        return None
    keys = NATURAL_KEYS[name]
    lines = [f"{name}: engine {len(e_norm)} rows, oracle {len(o_norm)} rows"]
    e_cols = {k for row in e_norm for k, _ in row}
    o_cols = {k for row in o_norm for k, _ in row}
    if e_cols != o_cols and e_norm and o_norm:
        lines.append(f"  columns only in engine: {sorted(e_cols - o_cols)}; only in oracle: {sorted(o_cols - e_cols)}")

    def index(rows: list[tuple]) -> dict[tuple, list[dict[str, Any]]]:
        out: dict[tuple, list[dict[str, Any]]] = {}
        for row in rows:
            d = dict(row)
            out.setdefault(tuple(d.get(k) for k in keys), []).append(d)
        return out

    def same(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
        if a == b:
            return True
        return tolerant and len(a) == len(b) == 1 and set(a[0]) == set(b[0]) and all(
            _close(f, a[0][f], b[0][f]) for f in a[0])

    e_idx, o_idx = index(e_norm), index(o_norm)
    changed = [k for k in e_idx if k in o_idx and not same(e_idx[k], o_idx[k])]
    only_e = [k for k in e_idx if k not in o_idx]
    only_o = [k for k in o_idx if k not in e_idx]
    if not changed and not only_e and not only_o and not lines[1:]:
        return None
    lines.append(f"  differing rows: {len(changed)}, only in engine: {len(only_e)}, only in oracle: {len(only_o)}")
    for k in changed[:SHOW]:
        e_row, o_row = e_idx[k][0], o_idx[k][0]
        fields = sorted(set(e_row) | set(o_row))
        delta = ", ".join(f"{f}: engine={e_row.get(f)!r} oracle={o_row.get(f)!r}"
                          for f in fields if e_row.get(f) != o_row.get(f))
        if len(e_idx[k]) != len(o_idx[k]):
            delta += f" (engine has {len(e_idx[k])} rows with this key, oracle {len(o_idx[k])})"
        lines.append(f"  ~ {dict(zip(keys, k))}\n      {delta}")
    for label, ks, idx in (("engine only", only_e, e_idx), ("oracle only", only_o, o_idx)):
        for k in ks[:SHOW]:
            lines.append(f"  {label}: {idx[k][0]}")
    return "\n".join(lines)


def _report_case(workdir: Path, case: dict[str, Any], oracle: dict[str, Any]) -> str:
    (workdir / "oracle.json").write_text(json.dumps(oracle, default=str, indent=1))
    (workdir / "case.json").write_text(json.dumps(case, default=str, indent=1))
    return (f"case kept in {workdir}: programs.json + data/*.csv are the engine inputs, "
            f"results.duckdb its results, oracle.json the oracle's")


_COUNTER = itertools.count()
_PASSED: set[tuple[str, str]] = set()


def _digest(case: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(case, default=str, sort_keys=True).encode()).hexdigest()


def _passed_before(test: str, case: dict[str, Any]) -> bool:
    """True when this test already passed on this exact case (hypothesis may generate one twice,
    and an engine run is costly). Failures are never remembered, so hypothesis can replay them."""
    return (test, _digest(case)) in _PASSED


def _workdir(factory: pytest.TempPathFactory, name: str) -> Path:
    return factory.mktemp(f"{name}{next(_COUNTER)}", numbered=True)


# --------------------------------------------------------------------------- tests


@settings(max_examples=MAX_EXAMPLES, deadline=None, suppress_health_check=SUPPRESS, derandomize=True,
          phases=PHASES, print_blob=False)
@given(case=cases())
def test_engine_matches_oracle(case: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    if _passed_before("oracle", case):
        return
    programs, tables = case["programs"], case["tables"]
    expected = evaluate(programs, tables)
    workdir = _workdir(tmp_path_factory, "diff")
    actual = run_engine(programs, tables, workdir)
    problems = [p for p in (diff_report(n, actual[n], expected[n]) for n in RESULTS) if p]
    if problems:
        pytest.fail("engine and oracle disagree\n" + "\n".join(problems) + "\n" + _report_case(workdir, case, expected))
    _PASSED.add(("oracle", _digest(case)))


@settings(max_examples=max(1, MAX_EXAMPLES // 4), deadline=None, suppress_health_check=SUPPRESS,
          derandomize=True, phases=PHASES, print_blob=False)
@given(case=cases(min_programs=2, max_programs=4))
def test_engine_threads_do_not_change_results(case: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
    if _passed_before("threads", case):
        return
    programs, tables = case["programs"], case["tables"]
    one = run_engine(programs, tables, _workdir(tmp_path_factory, "threads1-"), threads=1)
    workdir = _workdir(tmp_path_factory, "threads4-")
    four = run_engine(programs, tables, workdir, threads=4)
    problems = []
    for name in RESULTS:
        report = diff_report(name, four[name], one[name], tolerant=False)
        if report:
            problems.append(report.replace("engine", "threads=4").replace("oracle", "threads=1"))
    if problems:
        pytest.fail("threads=1 and threads=4 disagree\n" + "\n".join(problems) + f"\ncase in {workdir}")
    _PASSED.add(("threads", _digest(case)))


# --------------------------------------------------------------------------- the other engines

ENGINE_TABLES = ("stack_coverage", "run_warnings")


def _without_run_id(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in row.items() if k != "run_id"} for row in rows]


def _duckdb_run(factory: pytest.TempPathFactory, case: dict[str, Any],
                run: Callable[[], dict[str, list]]) -> dict[str, list]:
    """DuckDB's results of `case` (`run()`), kept for the other engines' tests of the same case: their
    tests draw the same cases (one test function, derandomized), and side by side (`pytest -n`) each
    worker would run DuckDB on them again. Kept in the folder the workers' temporary folders share."""
    folder = factory.getbasetemp().parent if os.environ.get("PYTEST_XDIST_WORKER") else factory.getbasetemp()
    kept = folder / f"duckdb-results-{_digest(case)}.pickle"
    if kept.exists():
        return pickle.loads(kept.read_bytes())
    results = run()
    write_atomically(kept, pickle.dumps(results))  # whole or not at all for a worker reading it
    return results


def _engines_agree(engine: str) -> Callable[..., None]:
    """A test: the same random cases, with random what-if scenarios (add_scenarios), on DuckDB and
    `engine` give the oracle's results (the baseline tables those of the run without the
    scenarios, the scenario tables evaluate_scenarios'), and the same rows in every column of
    every result table on both engines."""

    @pytest.mark.skipif(engine not in ENGINES, reason=f"{engine} is not in INCENTIVES_ENGINES")
    @settings(max_examples=ENGINE_EXAMPLES[engine], deadline=None, suppress_health_check=SUPPRESS,
              derandomize=True, phases=PHASES, print_blob=False)
    @given(case=cases())
    def test(case: dict[str, Any], tmp_path_factory: pytest.TempPathFactory) -> None:
        if _passed_before(engine, case):
            return
        programs, tables = case["programs"], dict(case["tables"])
        add_scenarios(Gen(rnd=random.Random(_digest(case))), tables)
        forecast, as_of = _forecast_of(case)
        expected = {**evaluate(programs, case["tables"]), **evaluate_scenarios(programs, tables),
                    **evaluate_forecast(programs, case["tables"], as_of=as_of)}
        workdir = _workdir(tmp_path_factory, f"{engine}-")
        extra = (*ENGINE_TABLES, *SCENARIO_RESULTS, *FORECAST_RESULTS)
        actual = run_engine(programs, tables, workdir, all_columns=True, target=engine, extra_tables=extra,
                            forecast=forecast)
        problems = [p for p in (*(diff_report(n, strip_to_semantics(actual)[n], expected[n]) for n in RESULTS),
                                *(diff_report(n, _without_run_id(actual[n]), expected[n])
                                  for n in (*SCENARIO_RESULTS, *FORECAST_RESULTS)))
                    if p]
        if "duckdb" in ENGINES:
            duck = _duckdb_run(tmp_path_factory, {**case, "tables": tables, "forecast": forecast},
                               lambda: run_engine(programs, tables, workdir / "duckdb", all_columns=True,
                                                  extra_tables=extra, forecast=forecast))
            for name in (*RESULTS, *extra):
                mine, theirs = _without_run_id(actual[name]), _without_run_id(duck[name])
                if normalized(mine) != normalized(theirs):
                    report = (diff_report(name, mine, theirs, tolerant=False) if name in NATURAL_KEYS else
                              f"{name}: {engine} {sorted(map(repr, normalized(mine)))[:3]} ..."
                              f" duckdb {sorted(map(repr, normalized(theirs)))[:3]} ...")
                    problems.append(f"{engine} and DuckDB disagree on " +
                                    str(report).replace("engine", engine).replace("oracle", "duckdb"))
        if problems:
            pytest.fail(f"{engine}: results differ\n" + "\n".join(problems) + "\n"
                        + _report_case(workdir, {**case, "tables": tables}, expected))
        _PASSED.add((engine, _digest(case)))

    test.__name__ = f"test_{engine}_agrees_with_duckdb_and_oracle"
    return test


test_postgres_agrees_with_duckdb_and_oracle = _engines_agree("postgres")
test_spark_agrees_with_duckdb_and_oracle = _engines_agree("spark")


# --------------------------------------------------------------------------- what-if scenarios

SCENARIO_EXAMPLES = {"duckdb": max(1, MAX_EXAMPLES // 4)}


def add_scenarios(r: Gen, tables: dict[str, list[dict[str, Any]]]) -> None:
    """1-3 scenarios drawn from the case's own rows: each names 1-2 participants (sometimes one
    with no actual rows), adds 1-4 hypothetical transactions (an actual transaction's SKU, type
    and date with another quantity and amount, sometimes a return) and sometimes replaces a
    property value the case uses (request or entity level, another number or boolean)."""
    actual = tables["transactions"]
    entities = sorted({t["entity_id"] for t in actual})
    keys = sorted({(str(p["level"]).lower(), p["key"]) for p in tables.get("properties", [])
                   if str(p["level"]).lower() in ("request", "entity")})
    scenarios, overrides = [], []
    for n in range(r.int(1, 3)):
        scenario = f"s{n}" if r.chance(70) else f"what if {n}"
        named = r.subset(entities, 1, 2)
        if r.chance(20):
            named.append(f"new_{n}")
        for i, entity in enumerate(named):
            for j in range(r.int(1, 4) if entity.startswith("new_") or r.chance(80) else 0):
                like = r.pick(actual)
                qty = r.cents(1, 400) if r.chance(85) else -r.cents(1, 40)
                scenarios.append({"scenario_id": scenario, "entity_id": entity, "transaction_id": f"S{n}-{i}-{j}",
                                  "transaction_type": like["transaction_type"], "transaction_date": like["transaction_date"],
                                  "sku_key": like["sku_key"], "quantity": qty, "uom_key": like["uom_key"],
                                  "amount": (qty * r.cents(5, 80)).quantize(D("0.01"))})
            if keys and not entity.startswith("new_") and r.chance(40):
                level, key = r.pick(keys)
                overrides.append({"scenario_id": scenario, "level": level, "entity_id": entity, "key": key,
                                  "value": r.pick(["true", "false", str(r.int(0, 120)), str(r.cents(0, 100))])})
    # a scenario named only by its property values is a scenario too; an entity in both is listed once
    tables["scenarios"] = scenarios
    tables["scenario_properties"] = list({(o["scenario_id"], o["level"], o["entity_id"], o["key"]): o
                                          for o in overrides}.values())


def _forecast_of(case: dict[str, Any]) -> tuple[dict[str, Any], str | None]:
    """The forecast's vars of a case (docs/forecast.md), and its as_of: mostly one of the case's
    transaction dates (so that the seasonal and recent windows cut through its rows), else the default
    (the latest date)."""
    r = Gen(rnd=random.Random(f"{_digest(case)}-forecast"))
    dates = sorted({str(t["transaction_date"])[:10] for t in case["tables"]["transactions"]
                    if t.get("transaction_date") and t.get("entity_id")})
    as_of = r.pick(dates) if dates and r.chance(70) else None
    return {"incentives_using_forecast": True, **({"incentives_as_of": as_of} if as_of else {})}, as_of


# on DuckDB here; PostgreSQL and Spark get random scenarios in their engine agreement tests above
@pytest.mark.parametrize("engine", engine_params(("duckdb",)))
def test_scenarios_match_oracle(engine: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Random cases with random scenarios: scenario_results and scenario_earnings equal the
    oracle's (each scenario evaluated as a whole run on the inputs plus the scenario's), and the
    baseline tables equal the oracle's run without the scenarios."""

    @settings(max_examples=SCENARIO_EXAMPLES[engine], deadline=None, suppress_health_check=SUPPRESS,
              derandomize=True, phases=PHASES, print_blob=False)
    @given(case=cases(min_programs=2, max_programs=4))
    def check(case: dict[str, Any]) -> None:
        programs, tables = case["programs"], dict(case["tables"])
        add_scenarios(Gen(rnd=random.Random(_digest(case))), tables)
        baseline = evaluate(programs, case["tables"])
        forecast, as_of = _forecast_of(case)
        expected = {**evaluate_scenarios(programs, tables), **evaluate_forecast(programs, case["tables"], as_of=as_of)}
        workdir = _workdir(tmp_path_factory, f"scenarios-{engine}-")
        actual = run_engine(programs, tables, workdir, target=engine, extra_tables=(*SCENARIO_RESULTS, *FORECAST_RESULTS),
                            forecast=forecast)
        for name in (*SCENARIO_RESULTS, *FORECAST_RESULTS):
            actual[name] = _without_run_id(actual[name])
        problems = [p for p in (*(diff_report(n, actual[n], baseline[n]) for n in RESULTS),
                                *(diff_report(n, actual[n], expected[n]) for n in (*SCENARIO_RESULTS, *FORECAST_RESULTS))) if p]
        if problems:
            pytest.fail("engine and oracle disagree\n" + "\n".join(problems) + "\n"
                        + _report_case(workdir, {**case, "tables": tables}, {**baseline, **expected}))

    check()
